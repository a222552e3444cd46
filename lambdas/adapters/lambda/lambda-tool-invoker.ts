import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import type { JsonObject } from "../../tools/built-in-tool";
import type { LambdaInvocation, LambdaInvoker } from "../../tools/lambda-tool";
import { ToolCallError } from "../../tools/tool-call-error";
import { GoalStoreUnavailableError } from "../shared/store-errors";

/** Lambda errors a later attempt of the step can get past: the step fails and is retried. */
const RETRYABLE = new Set([
  "TooManyRequestsException",
  "ServiceException",
  "EC2ThrottledException",
  "ResourceConflictException",
]);

interface SdkErrorShape {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly $fault?: unknown;
}

/**
 * Invokes user tool functions (RequestResponse) through the AWS SDK. No explicit endpoint: the SDK
 * honours `AWS_ENDPOINT_URL_LAMBDA`, which is how the local runtime's functions are reached. A
 * refusal of the Lambda service (AccessDenied, a missing function, a payload too large) is the
 * call's tool error; throttling and service faults throw, so the step is retried.
 */
export class SdkLambdaInvoker implements LambdaInvoker {
  constructor(private readonly client: LambdaClient) {}

  async invoke(functionArn: string, event: JsonObject): Promise<LambdaInvocation> {
    try {
      const output = await this.client.send(
        new InvokeCommand({
          FunctionName: functionArn,
          InvocationType: "RequestResponse",
          Payload: Buffer.from(JSON.stringify(event), "utf8"),
        }),
      );
      const text = output.Payload ? Buffer.from(output.Payload).toString("utf8") : "";
      const payload: unknown = text === "" ? null : JSON.parse(text);
      return output.FunctionError === undefined
        ? { payload }
        : { payload, functionError: output.FunctionError };
    } catch (error) {
      const { name, message, $fault } = (
        typeof error === "object" && error !== null ? error : {}
      ) as SdkErrorShape;
      const errorName = typeof name === "string" ? name : "UnknownError";
      if (RETRYABLE.has(errorName) || $fault === "server" || $fault === undefined) {
        throw new GoalStoreUnavailableError(`Lambda Invoke of ${functionArn} failed: ${errorName}`, {
          cause: error,
        });
      }
      throw new ToolCallError(
        errorName,
        `Invoking ${functionArn} was refused: ${typeof message === "string" ? message : errorName}`,
        {
          cause: error,
        },
      );
    }
  }
}

export function createLambdaInvoker(): SdkLambdaInvoker {
  return new SdkLambdaInvoker(new LambdaClient({ region: process.env.AWS_REGION }));
}
