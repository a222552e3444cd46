import * as z from "zod";
import { PAYLOAD_SETTINGS_DEFAULTS, PAYLOAD_SETTINGS_LIMITS } from "../../lambdas/adapters/payload-settings";
import { BUILT_IN_TOOL_NAMES } from "../../lambdas/tools/built-in-tool-names";
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

/** Slack user ids: `U…`, or `W…` in Enterprise Grid. */
export const SLACK_USER_ID_PATTERN = /^[UW][A-Z0-9]{2,31}$/;

export const SlackConfigSchema = z
  .strictObject({
    tenantId: z
      .string()
      .regex(/^\d{12}$/, "must be the 12-digit AWS account id of the API callers")
      .optional()
      .describe(
        "The one tenant whose goals this Slack workspace may see and decide; default: the deploying account's",
      ),
    approverUserIds: z
      .array(z.string().regex(SLACK_USER_ID_PATTERN, "must be a Slack user id such as U0123ABCD"))
      .max(100)
      .default([])
      .describe("Slack users who may approve and use /goal; default: none (every click is refused)"),
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
    approvers: z
      .array(z.email("must be an e-mail address"))
      .max(100)
      .default([])
      .describe(
        "The only addresses approval e-mails go to and whose links decide; default: none (no e-mail, every link refused)",
      ),
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
    slack: SlackConfigSchema.default({ approverUserIds: [] }),
    email: EmailConfigSchema.default({ approvers: [] }),
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

/** What Bedrock accepts as a tool name. */
const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

export const LambdaToolConfigSchema = z
  .strictObject({
    name: z
      .string()
      .regex(TOOL_NAME_PATTERN, "must start with a letter and hold up to 64 letters, digits, _ or -")
      .refine((name) => !BUILT_IN_TOOL_NAMES.includes(name), "is the name of a built-in tool")
      .describe("The tool's name, as the model and a GoalSpec's tools[] use it"),
    description: z.string().min(1).max(1000).describe("What the tool does, for the model"),
    inputSchema: z
      .looseObject({ type: z.literal("object", "must be a JSON Schema of type object") })
      .default({ type: "object" })
      .describe("JSON Schema of the tool's input (type object)"),
    entry: z
      .string()
      .regex(/\.(ts|mts|js|mjs)$/, "must be a .ts, .mts, .js or .mjs file")
      .optional()
      .describe(
        "A handler file of this project, relative to its root: bundled and deployed as a function of its own",
      ),
    functionArn: z
      .string()
      .regex(
        /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9$_-]+)?$/,
        "must be a Lambda function ARN",
      )
      .optional()
      .describe("An existing function in your account"),
    risk: z
      .enum(["read", "reversible", "irreversible"])
      .default("irreversible")
      .describe("read runs at once; irreversible waits for a human approval"),
    timeoutSeconds: wholeNumber({ min: 1, max: 900 }, "seconds")
      .default(30)
      .describe("The entry function's timeout"),
  })
  .refine((tool) => (tool.entry === undefined) !== (tool.functionArn === undefined), {
    message: "needs exactly one of entry and functionArn",
    path: ["entry"],
  })
  .describe("A tool that is a Lambda function");

export const ToolsConfigSchema = z
  .strictObject({
    lambda: z.array(LambdaToolConfigSchema).max(50).default([]).describe("Tools that are Lambda functions"),
  })
  .superRefine((tools, context) => {
    const seen = new Set<string>();
    tools.lambda.forEach((tool, index) => {
      if (seen.has(tool.name)) {
        context.addIssue({
          code: "custom",
          path: ["lambda", index, "name"],
          message: `'${tool.name}' is named twice`,
        });
      }
      seen.add(tool.name);
    });
  })
  .describe("Your own tools, granted per goal through a GoalSpec's tools[]");

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
      slack: { approverUserIds: [] },
      email: { approvers: [] },
    }),
    http: HttpConfigSchema.default({ allowedHosts: [] }),
    tools: ToolsConfigSchema.default({ lambda: [] }),
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
   * The one tenant (12-digit AWS account id of the API callers) whose goals and approvals this
   * Slack workspace may see and decide; every other tenant's are answered as unknown.
   *
   * @default - the deploying account (the tenant of API callers signing with its credentials)
   */
  readonly tenantId?: string;
  /**
   * The Slack user ids (`U0123ABCD`, `W0123ABCD`) who may press Approve / Reject and use `/goal`.
   * Anyone else is refused (HTTP 403, told to ask the deployer) and nothing changes.
   *
   * @default [] - every click and command is refused
   */
  readonly approverUserIds?: readonly string[];
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
  /**
   * The only addresses approval e-mails go to: a goal's `approval.email` outside this list is never
   * mailed. Each link is signed for the address it was sent to, decides as `email:<address>`, and
   * stops working once the address leaves this list.
   *
   * @default [] - no approval e-mail is sent and every link is refused
   */
  readonly approvers?: readonly string[];
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

/** A tool that is a Lambda function (DESIGN §6 "Tools"). */
export interface LambdaToolConfig {
  /** The tool's name, as the model and a GoalSpec's `tools[]` use it; not a built-in's. */
  readonly name: string;
  /** What the tool does, for the model (up to 1,000 characters). */
  readonly description: string;
  /**
   * JSON Schema of the tool's input, of type `object`.
   *
   * @default { type: "object" }
   */
  readonly inputSchema?: Record<string, unknown> & { readonly type: "object" };
  /**
   * A handler file of this project (relative to its root), bundled like the loop's functions and
   * deployed as a function of its own, with a role that may only write its logs. Give this or
   * `functionArn`.
   */
  readonly entry?: string;
  /** An existing function in your account. Give this or `entry`. */
  readonly functionArn?: string;
  /**
   * `read` and `reversible` run at once (nothing undoes a user tool's call yet: there is no
   * `compensate` function); `irreversible` waits for a human approval.
   *
   * @default "irreversible"
   */
  readonly risk?: "read" | "reversible" | "irreversible";
  /**
   * The `entry` function's timeout, in seconds (1 to 900).
   *
   * @default 30
   */
  readonly timeoutSeconds?: number;
}

/** Your own tools, granted per goal through a GoalSpec's `tools[]`. */
export interface ToolsConfig {
  /**
   * Tools that are Lambda functions.
   *
   * @default []
   */
  readonly lambda?: readonly LambdaToolConfig[];
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
  /** @default - no tools of your own */
  readonly tools?: ToolsConfig;
  /** @default - every payload setting's default */
  readonly payloads?: PayloadsConfig;
}

/** The configuration with every default applied. */
export type GoalLoopsConfig = z.output<typeof GoalLoopsConfigSchema>;

// The documented interfaces above and the schema must describe the same input: the compiler says
// where they part.
GoalLoopsConfigSchema satisfies z.ZodType<GoalLoopsConfig, GoalLoopsConfigInput>;
PayloadsConfigSchema satisfies z.ZodType<Required<PayloadsConfig>, PayloadsConfig>;
