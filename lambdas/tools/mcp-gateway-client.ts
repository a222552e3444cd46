import { GoalLoopsError } from "../core/goal/errors";
import type { JsonObject } from "./built-in-tool";
import type { LambdaInvoker } from "./lambda-tool";
import { McpCallAnswerSchema, type McpGatewayClient, McpListAnswerSchema } from "./mcp-gateway-contract";

/** The McpGateway function failed (threw, timed out) or answered something that is not the contract. */
export class McpGatewayFailedError extends GoalLoopsError {
  override readonly name = "McpGatewayFailed";
}

/**
 * The McpGateway function, invoked synchronously through Lambda (the local runtime's Lambda
 * endpoint locally). A listing that fails throws McpGatewayFailedError (the API answers 502); a
 * call that fails answers a tool error, so the model reads it and the goal goes on.
 */
export function lambdaMcpGateway(functionArn: string, invoker: LambdaInvoker): McpGatewayClient {
  const invoke = async (event: JsonObject) => {
    const answer = await invoker.invoke(functionArn, event);
    if (answer.functionError !== undefined) {
      const payload = answer.payload as { errorType?: unknown; errorMessage?: unknown } | null;
      throw new McpGatewayFailedError(
        `The McpGateway function failed: ${String(payload?.errorType ?? answer.functionError)}: ${String(payload?.errorMessage ?? "no message")}`,
      );
    }
    return answer.payload;
  };
  return {
    async list(servers) {
      const parsed = McpListAnswerSchema.safeParse(await invoke({ action: "list", servers: [...servers] }));
      if (!parsed.success)
        throw new McpGatewayFailedError(`The McpGateway answered no listing: ${parsed.error.message}`);
      return parsed.data;
    },
    async call(request) {
      try {
        const parsed = McpCallAnswerSchema.safeParse(await invoke({ action: "call", ...request }));
        return parsed.success
          ? parsed.data
          : {
              error: {
                name: "McpGatewayFailed",
                message: `The McpGateway answered no call result: ${parsed.error.message}`,
              },
            };
      } catch (error) {
        if (!(error instanceof McpGatewayFailedError)) throw error;
        return { error: { name: error.name, message: error.message } };
      }
    },
  };
}
