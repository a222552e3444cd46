/**
 * What `goal-loops preflight` reads of the target account: read-only calls only (Get, Describe,
 * List) and, when asked, one Converse per model. `aws-account-reader.ts` answers through the AWS SDK; a
 * test or the local stack's account endpoint answers with the same shapes.
 *
 * A call that finds nothing answers undefined; any other refusal (access denied, throttled, no
 * credentials) throws, and the check that made it reports the error's name and message.
 */
export interface AccountReader {
  /** The SSM parameter's value and ARN (its account), or undefined when there is none. */
  parameter(name: string): Promise<{ readonly value: string; readonly arn?: string } | undefined>;
  /** An inference profile of the region: its status and the foundation model ARNs it routes to. */
  inferenceProfile(id: string): Promise<InferenceProfileInfo | undefined>;
  /** A foundation model of the region and where it stands in Bedrock's lifecycle. */
  foundationModel(id: string): Promise<FoundationModelInfo | undefined>;
  /** The SES account of the region. */
  sesAccount(): Promise<SesAccountInfo>;
  /** An SES identity (an address or a domain), or undefined when the account has none of that name. */
  emailIdentity(name: string): Promise<EmailIdentityInfo | undefined>;
  /** A Secrets Manager secret by name, or undefined when there is none. */
  secret(name: string): Promise<SecretInfo | undefined>;
  /** The region's API Gateway CloudWatch role (account settings), or undefined when none is set. */
  apiGatewayCloudWatchRoleArn(): Promise<string | undefined>;
  /** One Converse call; what it used. */
  converse(modelId: string, prompt: string, maxTokens: number): Promise<ConverseInfo>;
  /** The account's applied quotas of one service in the region (Service Quotas, every page). */
  serviceQuotas(serviceCode: string): Promise<readonly ServiceQuotaInfo[]>;
  /** The account's Lambda concurrency in the region (Lambda `GetAccountSettings`). */
  lambdaConcurrency(): Promise<LambdaConcurrencyInfo>;
}

export interface ServiceQuotaInfo {
  /** As Service Quotas names it: `Cross-Region InvokeModel tokens per minute for Claude Sonnet 5.5`. */
  readonly name: string;
  readonly value: number;
  readonly code?: string;
}

export interface LambdaConcurrencyInfo {
  /** The account's concurrent executions in the region (new accounts start far below 1,000). */
  readonly concurrentExecutions: number;
  /** What is left after reserved concurrency: what the stack's functions share. */
  readonly unreservedConcurrentExecutions: number;
}

export interface InferenceProfileInfo {
  readonly id: string;
  readonly status: string;
  readonly modelArns: readonly string[];
}

export interface FoundationModelInfo {
  readonly modelId: string;
  readonly name?: string;
  /** `ACTIVE` or `LEGACY` (Bedrock's `modelLifecycle.status`). */
  readonly lifecycleStatus: string;
  readonly legacyTime?: Date;
  readonly endOfLifeTime?: Date;
}

export interface SesAccountInfo {
  /** false: the account is in the SES sandbox (mail only to verified identities, 200 a day). */
  readonly productionAccessEnabled: boolean;
  readonly sendingEnabled: boolean;
}

export interface EmailIdentityInfo {
  readonly type: string;
  readonly verifiedForSending: boolean;
}

export interface SecretInfo {
  readonly arn: string;
  /** Set when the secret is scheduled for deletion. */
  readonly deletedDate?: Date;
  /** When its value last changed (a rotation or a put), else when it was made. */
  readonly changedDate?: Date;
}

export interface ConverseInfo {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly stopReason?: string;
  readonly latencyMs?: number;
}

/** `AccessDeniedException: …` of an SDK error, or its message. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
