import { randomUUID } from "node:crypto";
import http from "node:http";
import type { JsonObject, JsonValue } from "./cloud-assembly-model";
import { AwsApiError } from "./errors";
import { isJsonObject, parseJson } from "./json";
import { listen, type RunningServer } from "./listen";

export type AwsJsonOperation = (request: JsonObject) => JsonValue | Promise<JsonValue>;

export interface AwsJsonServerOptions {
  /** `X-Amz-Target` prefix, e.g. `AWSStepFunctions` or `AWSEvents`. */
  readonly targetPrefix: string;
  /** `1.0` (Step Functions) or `1.1` (EventBridge). */
  readonly jsonVersion: "1.0" | "1.1";
  readonly operations: Readonly<Record<string, AwsJsonOperation>>;
  readonly port?: number;
  /** Unexpected errors (500s) are reported here. @default console.error */
  readonly onError?: (error: unknown) => void;
}

/**
 * A server for an AWS JSON protocol (`POST /`, operation in `X-Amz-Target`). Errors are answered
 * the way AWS does, `{"__type", "message"}` with the status of the error, so SDK clients raise
 * exceptions of the same names as against AWS.
 */
export async function startAwsJsonServer(options: AwsJsonServerOptions): Promise<RunningServer> {
  const contentType = `application/x-amz-json-${options.jsonVersion}`;
  const server = http.createServer(async (req, res) => {
    const reply = (status: number, body: JsonValue, errorType?: string) => {
      res.writeHead(status, {
        "content-type": contentType,
        "x-amzn-requestid": randomUUID(),
        ...(errorType === undefined ? {} : { "x-amzn-errortype": errorType }),
      });
      res.end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(Buffer.from(chunk));
      const target = String(req.headers["x-amz-target"] ?? "");
      const [prefix, operationName = ""] = target.split(".");
      const operation = prefix === options.targetPrefix ? options.operations[operationName] : undefined;
      if (operation === undefined) {
        throw new AwsApiError(
          "UnknownOperationException",
          `The local endpoint does not implement ${target || "(no X-Amz-Target)"}`,
        );
      }
      let request: JsonValue;
      try {
        request = parseJson(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        throw new AwsApiError("SerializationException", "The request body is not JSON");
      }
      if (!isJsonObject(request))
        throw new AwsApiError("SerializationException", "The request body is not a JSON object");
      reply(200, await operation(request));
    } catch (error) {
      if (error instanceof AwsApiError)
        return reply(error.statusCode, { __type: error.code, message: error.message }, error.code);
      (options.onError ?? console.error)(error);
      const message = error instanceof Error ? error.message : String(error);
      reply(500, { __type: "InternalFailure", message }, "InternalFailure");
    }
  });
  return listen(server, options.port);
}
