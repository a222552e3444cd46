import { describe, expect, it } from "vitest";
import type { JsonObject, JsonValue } from "../../lib/local/shared/cloud-assembly-model";
import { AwsApiError, StatesError } from "../../lib/local/shared/errors";
import { taskHandlers, unsupportedResources } from "../../lib/local/step-functions/task-handlers";
import { TaskTokenRegistry } from "../../lib/local/step-functions/task-tokens";

const FUNCTION = "arn:aws:lambda:us-east-1:000000000000:function:f";
const definition: JsonObject = {
  StartAt: "Direct",
  States: {
    Direct: { Type: "Task", Resource: FUNCTION, Next: "Callback" },
    Callback: { Type: "Task", Resource: "arn:aws:states:::lambda:invoke.waitForTaskToken", End: true },
  },
};

function handlersFor(options: {
  running?: boolean;
  invoke?: (ref: string, payload: JsonValue) => Promise<JsonValue>;
}) {
  const calls: string[] = [];
  const handlers = taskHandlers(
    definition,
    { executionArn: "arn:execution", isRunning: () => options.running ?? true },
    {
      tokens: new TaskTokenRegistry(),
      invokeFunction: async (ref, payload) => {
        calls.push(ref);
        return options.invoke ? options.invoke(ref, payload) : payload;
      },
      startExecution: () => ({ executionArn: "arn:child", startDate: new Date() }),
    },
  );
  return { handlers, calls };
}

describe("taskHandlers", () => {
  it("refuses to run a task of a stopped execution with an error no Retry or Catch can match", async () => {
    // Prepare: the engine may call a task again after an abort, when a retry back-off ends early.
    const { handlers, calls } = handlersFor({ running: false });

    // Act
    const failure = await handlers.Direct?.({}).catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(StatesError);
    expect(failure).toMatchObject({ name: "States.Runtime", isRetryable: false, isCatchable: false });
    expect(calls).toEqual([]);
  });

  it("reports a Lambda service failure with the Lambda. prefix Step Functions uses", async () => {
    // Prepare
    const { handlers } = handlersFor({
      invoke: async () => {
        throw new AwsApiError("ResourceNotFoundException", "Function not found", 404);
      },
    });

    // Act
    const failure = await handlers.Direct?.({}).catch((error: unknown) => error);

    // Assess
    expect(failure).toMatchObject({ name: "Lambda.ResourceNotFoundException" });
  });

  it("refuses a callback task whose payload does not carry $$.Task.Token", async () => {
    // Prepare
    const { handlers, calls } = handlersFor({});

    // Act
    const failure = await handlers
      .Callback?.({ FunctionName: FUNCTION, Payload: {} })
      .catch((error: unknown) => error);

    // Assess
    expect(failure).toMatchObject({ name: "States.Runtime" });
    expect(String((failure as Error).message)).toContain("$$.Task.Token");
    expect(calls).toEqual([]);
  });
});

describe("unsupportedResources", () => {
  it("names the states whose Task resource the local runtime cannot run", () => {
    // Prepare
    const withDynamo: JsonObject = {
      StartAt: "Get",
      States: { Get: { Type: "Task", Resource: "arn:aws:states:::dynamodb:getItem", End: true } },
    };

    // Act + Assess
    expect(unsupportedResources(definition)).toEqual([]);
    expect(unsupportedResources(withDynamo)).toEqual(["Get: arn:aws:states:::dynamodb:getItem"]);
  });
});
