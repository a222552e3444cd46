import * as z from "zod";
import { PAYLOAD_SETTINGS_DEFAULTS, PAYLOAD_SETTINGS_LIMITS } from "../../lambdas/adapters/payload-settings";
import { wholeNumber } from "./parse-settings";

/**
 * `goal-loops.config.json`: everything a deployer sets, in one file (DESIGN §6 "Configuration").
 * This zod schema is its single source: `bin/app.ts` validates the file with it at synth, the
 * `GoalLoops` construct takes the same object as props, and the committed JSON Schema
 * (goal-loops.config.schema.json, for editors) is generated from it.
 */

/** The heavy default: Claude Sonnet 4.5 through its US cross-region inference profile. */
export const DEFAULT_HEAVY_MODEL_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
/** The fast default: Claude Haiku 4.5 through its US cross-region inference profile. */
export const DEFAULT_FAST_MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0";
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 24 * 60 * 60;
const MIN_APPROVAL_TIMEOUT_SECONDS = 60;
const MAX_APPROVAL_TIMEOUT_SECONDS = 30 * 24 * 60 * 60;

/** A lower-case DNS host name, no scheme, no port (what `http_request` compares a URL's host with). */
export const HOST_NAME_PATTERN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Slack channel ids: `C…` (public), `G…` (private), `D…` (direct message). */
export const SLACK_CHANNEL_ID_PATTERN = /^[CGD][A-Z0-9]{2,31}$/;

const ModelIdSchema = z
  .string()
  .min(1)
  .regex(/^[A-Za-z0-9.:_\-/*]+$/, "must be a Bedrock model id, inference profile id or ARN");

export const ModelsConfigSchema = z
  .strictObject({
    heavy: ModelIdSchema.default(DEFAULT_HEAVY_MODEL_ID).describe(
      "Bedrock model for the heavy roles (reason, plan, attempt, reflect, reconcile)",
    ),
    fast: ModelIdSchema.default(DEFAULT_FAST_MODEL_ID).describe(
      "Bedrock model for the fast roles (execute, evaluate, judge, summarize, select)",
    ),
    allowed: z
      .array(ModelIdSchema)
      .min(1)
      .optional()
      .describe("The only models a GoalSpec may name; default: heavy and fast"),
  })
  .describe("Which Bedrock models the loops call");

export const SlackConfigSchema = z
  .strictObject({
    tenantId: z
      .string()
      .regex(/^\d{12}$/, "must be the 12-digit AWS account id of the API callers")
      .optional()
      .describe("The only tenant whose goals this Slack workspace may see and decide; default: every tenant"),
    defaultChannel: z
      .string()
      .regex(SLACK_CHANNEL_ID_PATTERN, "must be a Slack channel id such as C0123ABCD")
      .optional()
      .describe("Where approval requests go when a goal names no approval.slackChannel"),
  })
  .describe("The Slack door");

export const EmailConfigSchema = z
  .strictObject({
    sender: z
      .email("must be an e-mail address")
      .optional()
      .describe("A verified SES identity approval e-mails are sent from; default: none, no e-mail is sent"),
  })
  .describe("The e-mail door");

export const ApprovalsConfigSchema = z
  .strictObject({
    timeoutSeconds: wholeNumber(
      { min: MIN_APPROVAL_TIMEOUT_SECONDS, max: MAX_APPROVAL_TIMEOUT_SECONDS },
      "seconds",
    )
      .default(DEFAULT_APPROVAL_TIMEOUT_SECONDS)
      .describe("How long a goal waits for an approval before it expires (1 minute to 30 days)"),
    slack: SlackConfigSchema.default({}),
    email: EmailConfigSchema.default({}),
  })
  .describe("Human approvals: how long they wait and where they are asked");

export const HttpConfigSchema = z
  .strictObject({
    allowedHosts: z
      .array(z.string().regex(HOST_NAME_PATTERN, "must be a lower-case host name without scheme or port"))
      .default([])
      .describe("Hosts the http_request tool may reach; default: none (every URL refused)"),
  })
  .describe("The http_request tool");

export const PayloadsConfigSchema = z
  .strictObject({
    expireAfterDays: wholeNumber(PAYLOAD_SETTINGS_LIMITS.expireAfterDays, "days")
      .default(PAYLOAD_SETTINGS_DEFAULTS.expireAfterDays)
      .describe("Days after which the payload bucket deletes an object"),
    inlineMaxBytes: wholeNumber(PAYLOAD_SETTINGS_LIMITS.inlineMaxBytes, "bytes")
      .default(PAYLOAD_SETTINGS_DEFAULTS.inlineMaxBytes)
      .describe("Items above this size keep their large values in the payload bucket"),
    maxBytes: wholeNumber(PAYLOAD_SETTINGS_LIMITS.maxBytes, "bytes")
      .default(PAYLOAD_SETTINGS_DEFAULTS.maxBytes)
      .describe("The largest workspace file or tool result accepted"),
  })
  .describe("The goal store's payload bucket (files and items over DynamoDB's 400 KB)");

export const GoalLoopsConfigSchema = z
  .strictObject({
    $schema: z.string().optional().describe("The JSON Schema editors check this file with"),
    models: ModelsConfigSchema.default({ heavy: DEFAULT_HEAVY_MODEL_ID, fast: DEFAULT_FAST_MODEL_ID }),
    approvals: ApprovalsConfigSchema.default({
      timeoutSeconds: DEFAULT_APPROVAL_TIMEOUT_SECONDS,
      slack: {},
      email: {},
    }),
    http: HttpConfigSchema.default({ allowedHosts: [] }),
    payloads: PayloadsConfigSchema.default(PAYLOAD_SETTINGS_DEFAULTS),
  })
  .describe("goal-loops deployment configuration")
  .superRefine((config, context) => {
    const { heavy, fast, allowed } = config.models;
    for (const [role, id] of [
      ["heavy", heavy],
      ["fast", fast],
    ] as const) {
      if (allowed !== undefined && !allowed.includes(id)) {
        context.addIssue({
          code: "custom",
          path: ["models", role],
          message: `'${id}' must also be in models.allowed`,
        });
      }
    }
  });

/** Which Bedrock models the loops call. */
export interface ModelsConfig {
  /**
   * Bedrock model (id, inference profile id or ARN) of the heavy roles: reason, plan, attempt,
   * reflect, reconcile.
   *
   * @default DEFAULT_HEAVY_MODEL_ID (Claude Sonnet 4.5, US inference profile)
   */
  readonly heavy?: string;
  /**
   * Bedrock model of the fast roles: execute, evaluate, judge, summarize, select.
   *
   * @default DEFAULT_FAST_MODEL_ID (Claude Haiku 4.5, US inference profile)
   */
  readonly fast?: string;
  /**
   * The only models a GoalSpec's `models` may name (IAM allows no other). Must hold `heavy` and `fast`.
   *
   * @default - `heavy` and `fast`
   */
  readonly allowed?: readonly string[];
}

/** The Slack door. */
export interface SlackConfig {
  /**
   * The only tenant (12-digit AWS account id of the API callers) whose goals and approvals this
   * Slack workspace may see and decide.
   *
   * @default - every tenant of the deployment
   */
  readonly tenantId?: string;
  /**
   * The channel id (`C0123ABCD`) approval requests go to when a goal's `approval.slackChannel` is
   * not set.
   *
   * @default - none: a goal asking for Slack approvals must name its channel
   */
  readonly defaultChannel?: string;
}

/** The e-mail door. */
export interface EmailConfig {
  /**
   * A verified SES identity (an address) approval e-mails are sent from.
   *
   * @default - none: the door still decides signed links, but no e-mail is sent
   */
  readonly sender?: string;
}

/** Human approvals: how long they wait and where they are asked. */
export interface ApprovalsConfig {
  /**
   * How long a goal waits for an approval before it expires, in seconds (60 to 2,592,000).
   *
   * @default 86400 (24 hours)
   */
  readonly timeoutSeconds?: number;
  /** @default - every Slack setting's default */
  readonly slack?: SlackConfig;
  /** @default - every e-mail setting's default */
  readonly email?: EmailConfig;
}

/** The http_request tool. */
export interface HttpConfig {
  /**
   * Host names `http_request` may reach: lower case, no scheme, no port.
   *
   * @default [] - every URL is refused
   */
  readonly allowedHosts?: readonly string[];
}

/** The goal store's payload bucket (files and items over DynamoDB's 400 KB). */
export interface PayloadsConfig {
  /**
   * Days after which the bucket's lifecycle rule deletes an object (1 to 36,500). An item that
   * still points at an expired object reads as missing: keep it longer than goals are looked at.
   *
   * @default 365
   */
  readonly expireAfterDays?: number;
  /**
   * Items estimated above this many bytes keep their large values in the bucket (1,024 to 350,000;
   * DynamoDB holds at most 400 KB).
   *
   * @default 65536
   */
  readonly inlineMaxBytes?: number;
  /**
   * The largest workspace file or tool result accepted, in bytes (1 to 1 GiB).
   *
   * @default 52428800 (50 MiB)
   */
  readonly maxBytes?: number;
}

/**
 * `goal-loops.config.json`, and the props of the `GoalLoops` construct. Every field is optional.
 */
export interface GoalLoopsConfigInput {
  /** The JSON Schema an editor checks the file with; ignored otherwise. */
  readonly $schema?: string;
  /** @default - every model setting's default */
  readonly models?: ModelsConfig;
  /** @default - every approval setting's default */
  readonly approvals?: ApprovalsConfig;
  /** @default - every http setting's default */
  readonly http?: HttpConfig;
  /** @default - every payload setting's default */
  readonly payloads?: PayloadsConfig;
}

/** The configuration with every default applied. */
export type GoalLoopsConfig = z.output<typeof GoalLoopsConfigSchema>;

// The documented interfaces above and the schema must describe the same input: the compiler says
// where they part.
GoalLoopsConfigSchema satisfies z.ZodType<GoalLoopsConfig, GoalLoopsConfigInput>;
PayloadsConfigSchema satisfies z.ZodType<Required<PayloadsConfig>, PayloadsConfig>;
