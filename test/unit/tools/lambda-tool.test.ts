import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../../lambdas/tools/built-in-tool";
import { createBuiltInToolRunner } from "../../../lambdas/tools/built-in-tool-runner";
import {
  type LambdaInvocation,
  type LambdaToolEntry,
  lambdaTool,
  parseLambdaToolManifest,
} from "../../../lambdas/tools/lambda-tool";
import { BUILT_IN_TOOLS, createToolRegistry } from "../../../lambdas/tools/tool-registry";
import { callContext, InMemoryOutbox, InMemoryWorkspace, NOW } from "./support";

const ARN = "arn:aws:lambda:us-east-1:123456789012:function:lookup-ticket";

const LOOKUP: LambdaToolEntry = {
  name: "lookup_ticket",
  description: "Look up a ticket",
  inputSchema: {
    type: "object",
    properties: { ticketId: { type: "string", pattern: "^T-\\d+$" } },
    required: ["ticketId"],
    additionalProperties: false,
  },
  risk: "read",
  functionArn: ARN,
};

/** A Lambda that answers what the test scripts, and records each event it got. */
function scriptedLambda(answer: LambdaInvocation) {
  const events: { arn: string; event: JsonObject }[] = [];
  return {
    events,
    invoker: {
      invoke: async (arn: string, event: JsonObject) => {
        events.push({ arn, event });
        return answer;
      },
    },
  };
}

function runnerWith(entry: LambdaToolEntry, answer: LambdaInvocation) {
  const lambda = scriptedLambda(answer);
  const runner = createBuiltInToolRunner({
    workspace: new InMemoryWorkspace(),
    outbox: new InMemoryOutbox(),
    allowedHosts: [],
    now: () => NOW,
    registry: createToolRegistry([...BUILT_IN_TOOLS, lambdaTool(entry, lambda.invoker)]),
  });
  const context = callContext({ grantedTools: ["lookup_ticket"] });
  const call = (input: JsonObject) => ({ toolUseId: "tu-1", name: entry.name, input });
  return { runner, lambda, context, call };
}

describe("a user Lambda tool", () => {
  it("invokes the function with the contract's event and gives the model its JSON answer", async () => {
    // Prepare
    const { runner, lambda, context, call } = runnerWith(LOOKUP, { payload: { ticket: { id: "T-1042" } } });

    // Act
    const outcome = await runner.run(call({ ticketId: "T-1042" }), context);

    // Assess
    expect(outcome.result).toEqual({
      toolUseId: "tu-1",
      status: "success",
      content: [{ json: { ticket: { id: "T-1042" } } }],
    });
    expect(lambda.events).toEqual([
      {
        arn: ARN,
        event: {
          tool: "lookup_ticket",
          input: { ticketId: "T-1042" },
          goalId: context.goalId,
          runId: context.runId,
          toolUseId: "tu-1",
          idempotencyKey: context.idempotencyKey,
          tenantId: context.tenantId,
        },
      },
    ]);
    expect(runner.specsFor(["lookup_ticket"])).toEqual([
      { name: "lookup_ticket", description: "Look up a ticket", inputSchema: LOOKUP.inputSchema },
    ]);
  });

  it("refuses input its JSON Schema refuses, without invoking the function", async () => {
    // Prepare
    const { runner, lambda, context, call } = runnerWith(LOOKUP, { payload: {} });

    // Act
    const outcome = await runner.run(call({ ticketId: 1042, extra: true }), context);

    // Assess
    expect(outcome.errorName).toBe("InvalidToolInput");
    expect(lambda.events).toEqual([]);
  });

  it("answers the error the function declares, a fatal one as Fatal<name>, and a throw as LambdaToolFailed", async () => {
    // Prepare
    const declared = runnerWith(LOOKUP, {
      payload: { error: { name: "TicketNotFound", message: "No ticket T-9" } },
    });
    const fatal = runnerWith(LOOKUP, {
      payload: { error: { name: "HelpdeskLocked", message: "account suspended", fatal: true } },
    });
    const thrown = runnerWith(LOOKUP, {
      payload: { errorType: "TypeError", errorMessage: "cannot read ticket" },
      functionError: "Unhandled",
    });

    // Act
    const outcomes = await Promise.all(
      [declared, fatal, thrown].map(({ runner, context, call }) =>
        runner.run(call({ ticketId: "T-9" }), context),
      ),
    );

    // Assess
    expect(outcomes.map((outcome) => outcome.errorName)).toEqual([
      "TicketNotFound",
      "FatalHelpdeskLocked",
      "LambdaToolFailed",
    ]);
    expect(outcomes[2]?.result.content).toEqual([
      { text: "LambdaToolFailed: Tool 'lookup_ticket' failed: TypeError: cannot read ticket" },
    ]);
  });

  it("waits for an approval before an irreversible tool runs", async () => {
    // Prepare
    const { runner, lambda, context, call } = runnerWith(
      { ...LOOKUP, risk: "irreversible" },
      { payload: {} },
    );

    // Act
    const outcome = await runner.run(call({ ticketId: "T-1042" }), context);

    // Assess
    expect(outcome.errorName).toBe("ApprovalRequired");
    expect(runner.riskOf(call({ ticketId: "T-1042" }))).toBe("irreversible");
    expect(lambda.events).toEqual([]);
  });

  it("reads USER_TOOLS, and names what is wrong with a bad one", () => {
    // Act + Assess
    expect(parseLambdaToolManifest(undefined)).toEqual([]);
    expect(parseLambdaToolManifest(JSON.stringify([LOOKUP]))).toEqual([LOOKUP]);
    expect(() => parseLambdaToolManifest("[{")).toThrow("USER_TOOLS is not JSON");
    expect(() => parseLambdaToolManifest(JSON.stringify([{ ...LOOKUP, risk: "maybe" }]))).toThrow(/0\.risk/);
  });
});
