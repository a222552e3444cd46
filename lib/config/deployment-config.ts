import * as z from "zod";
import { type JwtAuthSettingsInput, JwtAuthSettingsSchema } from "../../lambdas/adapters/oidc/jwt-settings";
import { GOAL_RETENTION_LIMITS } from "../../lambdas/adapters/shared/payload-settings";
import { wholeNumber } from "./parse-settings";

/**
 * The settings of `goal-loops.config.json` that shape the deployment itself rather than what the
 * loops do: the stack's name, how long logs are kept, what is kept when the stack is deleted, the
 * API's throttling, and whether the stack manages the account's API Gateway CloudWatch role.
 */

/** The stack `cdk deploy` creates when the file names none. */
export const DEFAULT_STACK_NAME = "GoalLoopsStack";

/**
 * A CloudFormation stack name: a letter, then letters, digits and `-`. At most 64 characters, so
 * the names built from it stay inside their own limits (`<stackName>-plan-execute`, a state
 * machine name, may hold 80).
 */
export const STACK_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9-]{0,63}$/;

/** The retention periods CloudWatch Logs accepts (`RetentionInDays`). */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;
export type LogRetentionDays = (typeof LOG_RETENTION_DAYS)[number];

export const DEFAULT_LOG_RETENTION_DAYS: LogRetentionDays = 30;

/** What happens to a resource when it leaves the stack (`cdk destroy`, or removed from the config). */
export const REMOVAL_CHOICES = ["retain", "destroy"] as const;
export type RemovalChoice = (typeof REMOVAL_CHOICES)[number];

/** API Gateway's default account quota: 10,000 requests per second, 5,000 in a burst. */
const MAX_API_RATE_LIMIT = 10_000;
const MAX_API_BURST_LIMIT = 5_000;
export const DEFAULT_API_THROTTLING = { rateLimit: 50, burstLimit: 100 } as const;

export const StackNameSchema = z
  .string()
  .regex(
    STACK_NAME_PATTERN,
    "must be a CloudFormation stack name: a letter, then up to 63 letters, digits or -",
  )
  .default(DEFAULT_STACK_NAME)
  .describe(
    "The CloudFormation stack cdk deploy creates (and its cdk.out template's name); give each deployment in one account and region its own",
  );

const RemovalChoiceSchema = z.enum(REMOVAL_CHOICES, { error: "must be 'retain' or 'destroy'" });

export const LogsConfigSchema = z
  .strictObject({
    retentionDays: z
      .literal(LOG_RETENTION_DAYS, {
        error: `must be a retention CloudWatch Logs accepts: ${LOG_RETENTION_DAYS.join(", ")} (days)`,
      })
      .default(DEFAULT_LOG_RETENTION_DAYS)
      .describe("How many days every log group of the stack keeps its lines"),
    removalPolicy: RemovalChoiceSchema.default("retain").describe(
      "retain: the log groups stay when the stack is deleted (their names are unique to the stack instance, so a new stack never collides with them); destroy: deleted with the stack",
    ),
  })
  .describe("The stack's CloudWatch log groups (functions, state machines, API access log)");

export const DataConfigSchema = z
  .strictObject({
    removalPolicy: RemovalChoiceSchema.default("retain").describe(
      "retain: the goal table, its KMS key, the payload bucket and the tools' tables stay when the stack is deleted; destroy: deleted with it (the payload bucket only once empty)",
    ),
    goalRetentionDays: wholeNumber(GOAL_RETENTION_LIMITS, "days")
      .optional()
      .describe(
        "Days a goal's items are kept after they were last written (the goal record: after the goal last changed), by a DynamoDB TTL; their payload objects are kept 14 days longer, so none is deleted while an item points at it. Default: goals are kept",
      ),
  })
  .describe("What is kept of the goals' data when the stack is deleted");

export const ApiThrottlingConfigSchema = z
  .strictObject({
    rateLimit: z
      .number({ error: `must be a number of requests per second above 0, at most ${MAX_API_RATE_LIMIT}` })
      .positive({ error: `must be a number of requests per second above 0, at most ${MAX_API_RATE_LIMIT}` })
      .max(MAX_API_RATE_LIMIT, {
        error: `must be at most ${MAX_API_RATE_LIMIT} (the account's default quota)`,
      })
      .default(DEFAULT_API_THROTTLING.rateLimit)
      .describe("Steady requests per second the API stage accepts before answering 429"),
    burstLimit: wholeNumber({ min: 1, max: MAX_API_BURST_LIMIT }, "requests")
      .default(DEFAULT_API_THROTTLING.burstLimit)
      .describe("Requests the API stage accepts at once above the rate"),
  })
  .describe("The goals API stage's throttling");

/** How many event streams may be open at once by default: each holds a Lambda execution up to 15 minutes. */
export const DEFAULT_MAX_OPEN_STREAMS = 50;
/** The stream leases of every open stream share one item; this many keep it far below 400 KB. */
const MAX_OPEN_STREAMS = 1000;

export const ApiStreamConfigSchema = z
  .strictObject({
    maxOpen: wholeNumber({ min: 1, max: MAX_OPEN_STREAMS }, "streams")
      .default(DEFAULT_MAX_OPEN_STREAMS)
      .describe(
        "Event streams (GET /goals/{goalId}/stream) open at once; each holds one concurrent Lambda execution for up to 15 minutes. Past it a new stream answers 429 with Retry-After, and the console and the CLI follow goals by the long poll",
      ),
  })
  .describe("The goals' event streams (Server-Sent Events)");

/** How callers of the goals API sign in (`api.auth`). */
export const API_AUTH_MODES = ["iam", "jwt", "iam+jwt"] as const;

/** Whether a mode takes bearer tokens (and so needs `api.auth.jwt`). */
export function takesBearerTokens(mode: (typeof API_AUTH_MODES)[number]): boolean {
  return mode === "jwt" || mode === "iam+jwt";
}

export const ApiAuthConfigSchema = z
  .strictObject({
    mode: z
      .enum(API_AUTH_MODES)
      .default("iam")
      .describe(
        "iam: every route takes SigV4, the tenant from tenants.iam or the account; jwt: every route takes a bearer token of api.auth.jwt's issuer, checked by a Lambda authorizer, the tenant from its claim (POST /tenants/{id}/limits stays IAM, for operators); iam+jwt: both side by side, each on a REST API of its own with the same routes (GoalsApiUrl takes SigV4, JwtApiUrl bearer tokens), and one handler sees either caller as {tenantId, caller, via}",
      ),
    jwt: z.optional(JwtAuthSettingsSchema),
  })
  .superRefine((auth, context) => {
    if (takesBearerTokens(auth.mode) && auth.jwt === undefined) {
      context.addIssue({
        code: "custom",
        path: ["jwt"],
        message: `mode ${auth.mode} needs the issuer's settings here`,
      });
    }
  })
  .describe("How callers of the goals API sign in");

export const ApiConfigSchema = z
  .strictObject({
    auth: ApiAuthConfigSchema.default({ mode: "iam" }),
    throttling: ApiThrottlingConfigSchema.default(DEFAULT_API_THROTTLING),
    stream: ApiStreamConfigSchema.default({ maxOpen: DEFAULT_MAX_OPEN_STREAMS }),
    manageAccountCloudWatchRole: z
      .boolean()
      .default(false)
      .describe(
        "true: the stack creates the region's API Gateway CloudWatch role (AWS::ApiGateway::Account), replacing the one every other REST API of the account in this region logs through; false: leave the account's role alone (it must be set once: goal-loops preflight checks it)",
      ),
  })
  .describe("The goals API (API Gateway REST API)");

/** The stack's log groups. */
export interface LogsConfig {
  /**
   * How many days every log group keeps its lines: one of 1, 3, 5, 7, 14, 30, 60, 90, 120, 150,
   * 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653.
   *
   * @default 30
   */
  readonly retentionDays?: number;
  /**
   * `retain` keeps the log groups when the stack is deleted (their names never collide with a new
   * stack's); `destroy` deletes them with it.
   *
   * @default "retain"
   */
  readonly removalPolicy?: RemovalChoice;
}

/** What is kept of the goals' data when the stack is deleted. */
export interface DataConfig {
  /**
   * `retain` keeps the goal table, its KMS key, the payload bucket and the tools' tables when the
   * stack is deleted; `destroy` deletes them with it (turning off the table's deletion
   * protection). The payload bucket is never emptied by the stack: with `destroy`, empty it first.
   *
   * @default "retain"
   */
  readonly removalPolicy?: RemovalChoice;
  /**
   * Days a goal's items are kept after they were last written (1 to 36,500): a DynamoDB TTL, and
   * the payload bucket's lifecycle 14 days longer, so no object goes while an item points at it.
   *
   * @default - goals and their payloads are kept
   */
  readonly goalRetentionDays?: number;
}

/** The goals API stage's throttling. */
export interface ApiThrottlingConfig {
  /**
   * Steady requests per second before 429 (above 0, at most 10,000).
   *
   * @default 50
   */
  readonly rateLimit?: number;
  /**
   * Requests accepted at once above the rate (1 to 5,000).
   *
   * @default 100
   */
  readonly burstLimit?: number;
}

/** The goals' event streams. */
export interface ApiStreamConfig {
  /**
   * Streams open at once (1 to 1,000); each holds one concurrent Lambda execution for up to 15
   * minutes. Past it a new stream answers 429, and clients follow the goal by the long poll.
   *
   * @default 50
   */
  readonly maxOpen?: number;
}

/** The goals API. */
/** How callers of the goals API sign in. */
export interface ApiAuthConfig {
  /**
   * `iam`: SigV4 on every route. `jwt`: a bearer token of `jwt`'s issuer on every route (a Lambda
   * authorizer checks it), except the operators' `POST /tenants/{id}/limits`, which stays IAM.
   * `iam+jwt`: both, on two REST APIs with the same routes (`GoalsApiUrl` SigV4, `JwtApiUrl` bearer).
   *
   * @default "iam"
   */
  readonly mode?: (typeof API_AUTH_MODES)[number];
  /** @default - none; required with modes `jwt` and `iam+jwt` */
  readonly jwt?: JwtAuthSettingsInput;
}

export interface ApiConfig {
  /** @default - IAM (SigV4) on every route */
  readonly auth?: ApiAuthConfig;
  /** @default - 50 requests per second, bursts of 100 */
  readonly throttling?: ApiThrottlingConfig;
  /** @default - at most 50 streams open at once */
  readonly stream?: ApiStreamConfig;
  /**
   * Whether the stack creates the region's API Gateway CloudWatch role (`AWS::ApiGateway::Account`,
   * one per account and region, used by every REST API there that logs). The stage's logs need the
   * account to have one; `goal-loops preflight` says whether it does.
   *
   * @default false - leave the account's setting alone
   */
  readonly manageAccountCloudWatchRole?: boolean;
}

export type LogsSettings = z.output<typeof LogsConfigSchema>;
export type DataSettings = z.output<typeof DataConfigSchema>;
export type ApiSettings = z.output<typeof ApiConfigSchema>;

LogsConfigSchema satisfies z.ZodType<LogsSettings, LogsConfig>;
DataConfigSchema satisfies z.ZodType<DataSettings, DataConfig>;
ApiConfigSchema satisfies z.ZodType<ApiSettings, ApiConfig>;
