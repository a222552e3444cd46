import { BedrockRuntimeClient, ConverseCommand } from "@aws-sdk/client-bedrock-runtime";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { AwsApiError } from "../shared/errors";
import { isJsonObject, isRecord } from "../shared/json";

/**
 * The real Bedrock Runtime the recorder (`npm start -- --record`) sends every Converse call to: in
 * the user's region with the user's credentials (the SDK's default chain), or at `endpoint` (the
 * `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` of the shell that ran `npm start`, captured before the stack
 * points its own functions at the local endpoint).
 */
export interface BedrockUpstreamOptions {
  /** @default - the SDK's chain: AWS_REGION, the profile's region */
  readonly region?: string;
  /** @default - Bedrock Runtime's public endpoint for the region */
  readonly endpoint?: string;
}

export interface BedrockUpstream {
  /** The region, or the endpoint when one is set: what the recording notes as its upstream. */
  describe(): Promise<string>;
  /** One Converse call with this exact body; the answer as wire JSON, or the service's error. */
  converse(modelId: string, body: string): Promise<JsonObject>;
  close(): void;
}

/** The SDK's parsed answer as Converse wire JSON: blobs (redacted reasoning) as base64, metadata left out. */
function wireJson(value: unknown): JsonValue {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (Array.isArray(value)) return value.map(wireJson);
  if (isRecord(value)) {
    const entries = Object.entries(value).filter(([key, v]) => key !== "$metadata" && v !== undefined);
    return Object.fromEntries(entries.map(([key, v]) => [key, wireJson(v)]));
  }
  if (value === undefined) return null;
  return value as JsonValue;
}

export function createBedrockUpstream(options: BedrockUpstreamOptions): BedrockUpstream {
  const client = new BedrockRuntimeClient({
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    // The loop's own retries (each one recorded as the attempt it was) are the retries.
    maxAttempts: 1,
    requestHandler: { requestTimeout: 300_000, disableConcurrentStreams: true },
  });
  return {
    describe: async () => options.endpoint ?? (await client.config.region()),
    converse: async (modelId, body) => {
      // The SDK signs and sends; the body is the function's own bytes, not a re-serialized copy,
      // so what reaches the service is exactly what the loop sent.
      const command = new ConverseCommand({ modelId, messages: [] });
      command.middlewareStack.add(
        (next) => async (args) => {
          const request = args.request;
          if (isRecord(request) && isRecord(request.headers)) {
            request.body = body;
            request.headers["content-length"] = String(Buffer.byteLength(body));
          }
          return next(args);
        },
        { step: "build", priority: "low", name: "goalLoopsRecordedBody" },
      );
      try {
        const output = wireJson(await client.send(command));
        if (!isJsonObject(output)) throw new Error("the Converse answer is not an object");
        return output;
      } catch (error) {
        throw upstreamError(error, options.endpoint ?? "Bedrock Runtime");
      }
    },
    close: () => client.destroy(),
  };
}

/** The service's error under its own name and status, or ServiceUnavailableException when none answered. */
function upstreamError(error: unknown, where: string): AwsApiError {
  if (error instanceof AwsApiError) return error;
  const name = error instanceof Error ? error.name : "Error";
  const message = error instanceof Error ? error.message : String(error);
  const metadata = isRecord(error) && isRecord(error.$metadata) ? error.$metadata : {};
  const status = typeof metadata.httpStatusCode === "number" ? metadata.httpStatusCode : undefined;
  if (status === undefined) {
    return new AwsApiError(
      "ServiceUnavailableException",
      `The recorder's upstream (${where}) could not be reached: ${name}: ${message}`,
      503,
    );
  }
  return new AwsApiError(name, message, status);
}
