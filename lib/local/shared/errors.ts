import { GoalLoopsError } from "../../../lambdas/core/goal/errors";

/** cdk.out is missing, malformed, or uses something the local runtime cannot run. */
export class CloudAssemblyError extends GoalLoopsError {
  override readonly name = "CloudAssemblyError";
}

/** The local scheduler's kept schedules (`<stateDir>/schedules.json`) cannot be read. */
export class LocalSchedulesError extends GoalLoopsError {
  override readonly name = "LocalSchedulesError";
}

/** A rollback asked for a version the state folder does not keep (`npm start -- --rollback --to 7`). */
export class UnknownVersionError extends GoalLoopsError {
  override readonly name = "UnknownVersionError";
}

/** `cdk synth` failed or could not be started. */
export class SynthError extends GoalLoopsError {
  override readonly name = "SynthError";
}

/** A model fixture file is missing, not JSON, or does not match the fixture schema. */
export class FixtureFileError extends GoalLoopsError {
  override readonly name = "FixtureFileError";
  readonly file: string;

  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.file = file;
  }
}

/**
 * An AWS API error answered by a local endpoint: `code` becomes the wire error type (`__type` or
 * `x-amzn-errortype`), which the SDK turns into an exception of that name.
 */
export class AwsApiError extends GoalLoopsError {
  override readonly name = "AwsApiError";
  readonly code: string;
  readonly statusCode: number;

  constructor(code: string, message: string, statusCode = 400) {
    super(message);
    this.code = code;
    this.statusCode = statusCode;
  }
}

/**
 * An error raised inside a state machine run (`States.Timeout`, `States.Runtime`, a SendTaskFailure
 * error). Its `name` is what Retry and Catch match, so it is set per instance.
 */
export class StatesError extends GoalLoopsError {
  override readonly name: string;
  /**
   * Read by aws-local-stepfunctions (`error.isRetryable ?? true`, `error.isCatchable ?? true`): an
   * error raised because the execution was stopped must end it, not be retried or caught.
   */
  readonly isRetryable: boolean;
  readonly isCatchable: boolean;

  constructor(name: string, message: string, options: { final?: boolean } = {}) {
    super(message);
    this.name = name;
    this.isRetryable = !options.final;
    this.isCatchable = !options.final;
  }
}

/** What the Lambda service reports for a failed invocation (the function's error, or the sandbox's). */
export interface LambdaErrorPayload {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace?: readonly string[];
}

/**
 * A Lambda invocation failed. `name` is the function's error type so a state's Retry and Catch
 * match on it, and `message` is the JSON Step Functions puts in `Cause`, as in AWS.
 */
export class LambdaFunctionError extends GoalLoopsError {
  override readonly name: string;
  readonly payload: LambdaErrorPayload;

  constructor(payload: LambdaErrorPayload) {
    super(JSON.stringify(payload));
    this.name = payload.errorType;
    this.payload = payload;
  }
}

/** A local secret (from the environment) the doors could not use: it says which and why. */
export class LocalSecretError extends GoalLoopsError {
  override readonly name = "LocalSecretError";
}

/** A path segment in a parameter's place is not valid percent-encoding (`%`, `%ZZ`, a cut UTF-8 sequence). */
export class MalformedPathSegmentError extends GoalLoopsError {
  override readonly name = "MalformedPathSegmentError";
  /** The route parameter the segment stood for (`approvalId`). */
  readonly parameter: string;
  /** The segment as the client sent it. */
  readonly segment: string;

  constructor(parameter: string, segment: string) {
    super(`Path parameter '${parameter}' is not valid percent-encoding`);
    this.parameter = parameter;
    this.segment = segment;
  }
}
