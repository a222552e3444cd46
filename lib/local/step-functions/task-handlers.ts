import { randomUUID } from "node:crypto";
import { walkStates } from "../cdk-out/read-state-machines";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { AwsApiError, LambdaFunctionError, StatesError } from "../shared/errors";
import { isJsonObject } from "../shared/json";
import type { TaskTokenRegistry } from "./task-tokens";

/** How the local runtime runs a Task's Resource. */
export type TaskKind = "function" | "invoke" | "invoke-callback" | "start-execution";

export function taskKindOf(resource: string): TaskKind | undefined {
  // payloadResponseOnly: the Resource is the function ARN itself.
  if (/^arn:[^:]+:lambda:[^:]*:[^:]*:function:/.test(resource)) return "function";
  if (/^arn:[^:]+:states:::lambda:invoke$/.test(resource)) return "invoke";
  if (/^arn:[^:]+:states:::lambda:invoke\.waitForTaskToken$/.test(resource)) return "invoke-callback";
  if (/^arn:[^:]+:states:::states:startExecution$/.test(resource)) return "start-execution";
  return undefined;
}

/** The Task resources every state of a definition uses that the local runtime cannot run. */
export function unsupportedResources(definition: JsonObject): string[] {
  return [...walkStates(definition)].flatMap(([name, state]) =>
    state.Type === "Task" && taskKindOf(String(state.Resource)) === undefined
      ? [`${name}: ${String(state.Resource)}`]
      : [],
  );
}

/** What a task handler needs from the execution it belongs to. */
export interface TaskExecution {
  readonly executionArn: string;
  isRunning(): boolean;
}

export interface TaskHandlerServices {
  readonly tokens: TaskTokenRegistry;
  invokeFunction(functionRef: string, payload: JsonValue): Promise<JsonValue>;
  startExecution(
    stateMachineArn: string,
    input: JsonValue,
    name: string | undefined,
  ): { executionArn: string; startDate: Date };
}

type TaskHandler = (input: JsonValue) => Promise<JsonValue>;

/**
 * One local handler per Task state, keyed by state name (that is how the engine looks them up),
 * chosen by the state's Resource.
 */
export function taskHandlers(
  definition: JsonObject,
  execution: TaskExecution,
  services: TaskHandlerServices,
): Record<string, TaskHandler> {
  const handlers: Record<string, TaskHandler> = {};
  for (const [name, state] of walkStates(definition)) {
    if (state.Type !== "Task") continue;
    const resource = String(state.Resource);
    const heartbeatSeconds = typeof state.HeartbeatSeconds === "number" ? state.HeartbeatSeconds : undefined;
    handlers[name] = async (input) => {
      // Claimed first, whatever the kind: a token minted for this state must not leak to the next.
      const token = services.tokens.claim();
      // The engine may still call a Task after an abort (a retry back-off ends early): refuse it.
      if (!execution.isRunning())
        throw new StatesError("States.Runtime", "The execution was stopped", { final: true });
      switch (taskKindOf(resource)) {
        case "function":
          return invoke(services, resource, input);
        case "invoke": {
          const request = lambdaRequest(name, input);
          const payload = await invoke(services, request.FunctionName, request.Payload);
          return lambdaInvokeResponse(payload);
        }
        case "invoke-callback": {
          const request = lambdaRequest(name, input);
          if (token === undefined || !JSON.stringify(input).includes(token)) {
            throw new StatesError(
              "States.Runtime",
              `${name}: a .waitForTaskToken task must pass $$.Task.Token`,
            );
          }
          const answer = services.tokens.wait(token, {
            executionArn: execution.executionArn,
            stateName: name,
            heartbeatSeconds,
          });
          // The answer may come before the function returns; nothing awaits it until then.
          answer.catch(() => {});
          try {
            await invoke(services, request.FunctionName, request.Payload);
          } catch (error) {
            services.tokens.discard(token);
            throw error;
          }
          return answer;
        }
        case "start-execution": {
          const params = isJsonObject(input) ? input : {};
          const started = startExecution(services, params);
          return { ExecutionArn: started.executionArn, StartDate: started.startDate.toISOString() };
        }
        default:
          throw new StatesError("States.Runtime", `${name}: resource ${resource} is not supported locally`);
      }
    };
  }
  return handlers;
}

function lambdaRequest(stateName: string, input: JsonValue): { FunctionName: string; Payload: JsonValue } {
  const functionName = isJsonObject(input) ? input.FunctionName : undefined;
  if (typeof functionName !== "string") {
    throw new StatesError("States.Runtime", `${stateName}: lambda:invoke needs Parameters.FunctionName`);
  }
  // Payload may be a JSON string (Payload.$ of a string path) or a value.
  const payload = isJsonObject(input) ? (input.Payload ?? {}) : {};
  return { FunctionName: functionName, Payload: payload };
}

/** The Lambda Invoke API response the `lambda:invoke` integration returns. */
function lambdaInvokeResponse(payload: JsonValue): JsonObject {
  return {
    ExecutedVersion: "$LATEST",
    Payload: payload,
    SdkHttpMetadata: { HttpStatusCode: 200 },
    SdkResponseMetadata: { RequestId: randomUUID() },
    StatusCode: 200,
  };
}

async function invoke(
  services: TaskHandlerServices,
  functionRef: string,
  payload: JsonValue,
): Promise<JsonValue> {
  try {
    return await services.invokeFunction(functionRef, payload);
  } catch (error) {
    if (error instanceof LambdaFunctionError || error instanceof StatesError) throw error;
    // Service-side failures carry the `Lambda.` prefix Step Functions gives them.
    if (error instanceof AwsApiError) throw new StatesError(`Lambda.${error.code}`, error.message);
    throw new StatesError("Lambda.ServiceException", error instanceof Error ? error.message : String(error));
  }
}

function startExecution(services: TaskHandlerServices, params: JsonObject) {
  const { StateMachineArn, Input, Name } = params;
  if (typeof StateMachineArn !== "string") {
    throw new StatesError("States.Runtime", "states:startExecution needs Parameters.StateMachineArn");
  }
  try {
    return services.startExecution(StateMachineArn, Input ?? {}, typeof Name === "string" ? Name : undefined);
  } catch (error) {
    if (error instanceof AwsApiError)
      throw new StatesError(`StepFunctions.${error.code}Exception`, error.message);
    throw error;
  }
}
