import { type FunctionSpec, LOCAL_ENVIRONMENT } from "../shared/cloud-assembly-model";

/** The local endpoints every function's SDK clients reach through `AWS_ENDPOINT_URL_*`. */
export interface ServiceEndpoints {
  readonly dynamodb?: string;
  readonly sfn?: string;
  readonly bedrockRuntime?: string;
  readonly eventbridge?: string;
  readonly scheduler?: string;
  readonly s3?: string;
  readonly lambda?: string;
}

export function endpointVariables(endpoints: ServiceEndpoints): Record<string, string> {
  const entries: [string, string | undefined][] = [
    ["AWS_ENDPOINT_URL_DYNAMODB", endpoints.dynamodb],
    ["AWS_ENDPOINT_URL_SFN", endpoints.sfn],
    ["AWS_ENDPOINT_URL_BEDROCK_RUNTIME", endpoints.bedrockRuntime],
    ["AWS_ENDPOINT_URL_EVENTBRIDGE", endpoints.eventbridge],
    ["AWS_ENDPOINT_URL_SCHEDULER", endpoints.scheduler],
    ["AWS_ENDPOINT_URL_S3", endpoints.s3],
    ["AWS_ENDPOINT_URL_LAMBDA", endpoints.lambda],
  ];
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/**
 * A function's process.env, layered as in AWS: a few defaults, then the function's own variables,
 * then what the Lambda service reserves (region, function name, credentials — a function cannot
 * override those), then the local endpoints, then the runtime's per-function overrides (--model).
 */
export function lambdaEnvironment(
  spec: FunctionSpec,
  endpoints: ServiceEndpoints,
  overrides: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const { region } = LOCAL_ENVIRONMENT;
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "en_US.UTF-8",
    TZ: ":UTC",
    ...spec.environment,
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_LAMBDA_FUNCTION_NAME: spec.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memoryMb),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${spec.functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: "local",
    AWS_EXECUTION_ENV: `AWS_Lambda_${spec.runtime}`,
    LAMBDA_TASK_ROOT: spec.assetDir,
    _HANDLER: spec.handler,
    // Dummy credentials: the SDK signs requests, the local endpoints do not check signatures.
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    AWS_SESSION_TOKEN: "local",
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    ...endpointVariables(endpoints),
    ...overrides,
  };
}
