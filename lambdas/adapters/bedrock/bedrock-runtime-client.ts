import { BedrockRuntimeClient, type BedrockRuntimeClientConfig } from "@aws-sdk/client-bedrock-runtime";

/**
 * How long a Converse call may go without a byte on its HTTP/2 stream. A call is not streamed, so
 * this bounds the whole generation. Keep the model Lambda's timeout above it: then a slow model
 * fails as a retryable `ModelRequestTimeout` instead of the Lambda being killed mid-call.
 */
export const DEFAULT_MODEL_REQUEST_TIMEOUT_MS = 300_000;

export interface BedrockRuntimeClientOptions {
  /** @default DEFAULT_MODEL_REQUEST_TIMEOUT_MS */
  readonly requestTimeoutMs?: number;
  /**
   * Where to call, for a caller outside a Lambda sandbox that names it itself (the bench's
   * in-process baseline calls the local endpoint through the same client as the steps).
   * @default - what a sandbox has: AWS_REGION, AWS_ENDPOINT_URL_BEDROCK_RUNTIME, the credential chain
   */
  readonly target?: Required<Pick<BedrockRuntimeClientConfig, "endpoint" | "region" | "credentials">>;
}

/**
 * The Bedrock runtime client for a handler's module scope. No explicit endpoint: the SDK honours
 * `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` by itself, which is how the local fixture endpoint is reached.
 */
export function createBedrockRuntimeClient(options: BedrockRuntimeClientOptions = {}): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region: process.env.AWS_REGION,
    ...options.target,
    // Step Functions owns the one retry budget: SDK attempts × state retries would multiply the
    // attempts (and the wait) behind every retryable error, so the SDK tries exactly once.
    maxAttempts: 1,
    // Options for the client's default handler, NodeHttp2Handler (this client always speaks HTTP/2).
    // Passing options replaces the SDK's defaults, so its one default, a session per request, is
    // restated here.
    requestHandler: {
      requestTimeout: options.requestTimeoutMs ?? DEFAULT_MODEL_REQUEST_TIMEOUT_MS,
      disableConcurrentStreams: true,
    },
  });
}
