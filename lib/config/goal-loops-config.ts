import * as z from "zod";
import { DEFAULT_METRICS_NAMESPACE } from "../../lambdas/adapters/metrics/goal-metrics";
import {
  PAYLOAD_SETTINGS_DEFAULTS,
  PAYLOAD_SETTINGS_LIMITS,
} from "../../lambdas/adapters/shared/payload-settings";
import { ON_ABANDON, type OnAbandon } from "../../lambdas/core/goal/goal-spec";
import { DEFAULT_PLAN_STEP_CONCURRENCY, MAX_PLAN_STEP_CONCURRENCY } from "../../lambdas/core/goal/plan";
import { DEFAULT_SUBGOAL_MAX_CHILDREN, DEFAULT_SUBGOAL_MAX_DEPTH } from "../../lambdas/core/goal/subgoals";
import { ThinkingSettingsSchema } from "../../lambdas/core/goal/thinking-settings";
import {
  SLACK_CHANNEL_ID_PATTERN,
  SlackChannelTenantsSchema,
} from "../../lambdas/core/human/slack/slack-tenants";
import { ModelQuotasSchema } from "../../lambdas/core/models/capacity/model-quota";
import type { ModelRole } from "../../lambdas/core/models/model-roles";
import { TenantIdSchema } from "../../lambdas/core/tenants/tenant-limits";
import {
  type TenantsSettingsInput,
  TenantsSettingsSchema,
} from "../../lambdas/core/tenants/tenants-settings";
import { BUILT_IN_TOOL_NAMES } from "../../lambdas/tools/built-in-tool-names";
import { NotifyChannelsSchema } from "../../lambdas/tools/notify-destinations";
import {
  type ApiConfig,
  ApiConfigSchema,
  type DataConfig,
  DataConfigSchema,
  DEFAULT_API_THROTTLING,
  DEFAULT_LOG_RETENTION_DAYS,
  DEFAULT_MAX_OPEN_STREAMS,
  type LogsConfig,
  LogsConfigSchema,
  StackNameSchema,
} from "./deployment-config";
import { type McpServerConfigInput, McpServersConfigSchema } from "./mcp-servers-config";
import { wholeNumber } from "./parse-settings";
import { type SecretsConfigInput, SecretsConfigSchema } from "./secrets-config";

/**
 * `goal-loops.config.json`: everything a deployer sets, in one file (DESIGN §6 "Configuration").
 * This zod schema is its single source: `bin/app.ts` validates the file with it at synth, the
 * `GoalLoops` construct takes the same object as props, and the committed JSON Schema
 * (goal-loops.config.schema.json, for editors) is generated from it.
 */

/**
 * The heavy default without `models.dataResidency`: Claude Sonnet 5.5 through its global inference
 * profile (list price). With it, the region's geographic profile (lib/config/resolve-models.ts).
 */
export const DEFAULT_HEAVY_MODEL_ID = "global.anthropic.claude-sonnet-5-5";
/** The fast default without `models.dataResidency`: Claude Haiku 5.5 through its global inference profile. */
export const DEFAULT_FAST_MODEL_ID = "global.anthropic.claude-haiku-5-5";
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 24 * 60 * 60;
const MIN_APPROVAL_TIMEOUT_SECONDS = 60;
const MAX_APPROVAL_TIMEOUT_SECONDS = 30 * 24 * 60 * 60;

/** A lower-case DNS host name, no scheme, no port (what `http_request` compares a URL's host with). */
export const HOST_NAME_PATTERN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export { SLACK_CHANNEL_ID_PATTERN };

const ModelIdSchema = z
  .string()
  .min(1)
  .regex(/^[A-Za-z0-9.:_\-/*]+$/, "must be a Bedrock model id, inference profile id or ARN");

export const ModelsConfigSchema = z
  .strictObject({
    heavy: ModelIdSchema.optional().describe(
      "Bedrock model for the heavy roles (reason, plan, attempt, reflect, reconcile); default: Claude Sonnet 5.5, global profile (the region's with dataResidency)",
    ),
    fast: ModelIdSchema.optional().describe(
      "Bedrock model for the fast roles (execute, evaluate, judge, summarize, select); default: Claude Haiku 5.5, global profile (with dataResidency: the region's, else Claude Haiku 4.5's)",
    ),
    allowed: z
      .array(ModelIdSchema)
      .min(1)
      .optional()
      .describe("The only models a GoalSpec may name; default: heavy and fast"),
    dataResidency: z
      .boolean()
      .default(false)
      .describe(
        "Keep model requests in the stack region's geography: the region's geographic inference profiles (us., eu., jp. …, 10 % over list) instead of global ones",
      ),
    thinking: z
      .optional(ThinkingSettingsSchema)
      .describe(
        "Thinking mode and effort per model role (reason, plan, …); default: adaptive, effort high where the loop decides, low where it transcribes, medium for execute",
      ),
    quotas: z
      .optional(ModelQuotasSchema)
      .describe(
        "Bedrock quotas by model id, inference profile id or prefix* (Service Quotas: requests and tokens per minute): every goal's calls are paced within them, and a goal without capacity waits instead of failing; default: no pacing (a throttle still only waits)",
      ),
  })
  .describe("Which Bedrock models the loops call, and how much each role thinks");

/** Slack user ids: `U…`, or `W…` in Enterprise Grid. */
export const SLACK_USER_ID_PATTERN = /^[UW][A-Z0-9]{2,31}$/;

export const SlackConfigSchema = z
  .strictObject({
    tenantId: z
      .optional(TenantIdSchema)
      .describe(
        "The tenant whose goals this Slack workspace may see and decide from any channel channelTenants does not name (an account id, or a tenant of tenants.iam or a token's claim); default: the deploying account's",
      ),
    channelTenants: z
      .optional(SlackChannelTenantsSchema)
      .describe(
        'Slack channel id → the tenant a click or /goal command from that channel acts for, such as {"C0123ABCD": "team-a"}; other channels act for tenantId; default: none',
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

const EntryFileSchema = z.string().regex(/\.(ts|mts|js|mjs)$/, "must be a .ts, .mts, .js or .mjs file");
const FunctionArnSchema = z
  .string()
  .regex(
    /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9$_-]+)?$/,
    "must be a Lambda function ARN",
  );

export const CompensateConfigSchema = z
  .strictObject({
    entry: EntryFileSchema.optional().describe("A handler file of this project that undoes one call"),
    functionArn: FunctionArnSchema.optional().describe(
      "An existing function in your account that undoes one call",
    ),
  })
  .refine((compensate) => (compensate.entry === undefined) !== (compensate.functionArn === undefined), {
    message: "needs exactly one of entry and functionArn",
    path: ["entry"],
  })
  .describe("The function a corrective revision calls to undo this tool's last call");

/** A tool table's name: one table per name, shared by the tools that name it. */
export const TOOL_TABLE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

export const LambdaToolConfigSchema = z
  .strictObject({
    name: z
      .string()
      .regex(TOOL_NAME_PATTERN, "must start with a letter and hold up to 64 letters, digits, _ or -")
      .refine((name) => !BUILT_IN_TOOL_NAMES.includes(name), "is the name of a built-in tool")
      .refine(
        (name) => !name.includes("__"),
        "must not hold '__', which separates an MCP server's name from its tool's",
      )
      .describe("The tool's name, as the model and a GoalSpec's tools[] use it"),
    description: z.string().min(1).max(1000).describe("What the tool does, for the model"),
    inputSchema: z
      .looseObject({ type: z.literal("object", "must be a JSON Schema of type object") })
      .default({ type: "object" })
      .describe("JSON Schema of the tool's input (type object)"),
    entry: EntryFileSchema.optional().describe(
      "A handler file of this project, relative to its root: bundled and deployed as a function of its own",
    ),
    functionArn: FunctionArnSchema.optional().describe("An existing function in your account"),
    risk: z
      .enum(["read", "reversible", "irreversible"])
      .default("irreversible")
      .describe("read runs at once; irreversible waits for a human approval"),
    timeoutSeconds: wholeNumber({ min: 1, max: 900 }, "seconds")
      .default(30)
      .describe("The entry function's timeout"),
    compensate: CompensateConfigSchema.optional(),
    table: z
      .string()
      .regex(TOOL_TABLE_NAME_PATTERN, "must be 1-32 lower-case letters, digits or -, starting with a letter")
      .optional()
      .describe(
        "A DynamoDB table of the tools' own (key pk, sort key sk), one per name: the entry function and its compensate function may read and write it, as TOOL_TABLE_NAME",
      ),
  })
  .refine((tool) => (tool.entry === undefined) !== (tool.functionArn === undefined), {
    message: "needs exactly one of entry and functionArn",
    path: ["entry"],
  })
  .describe("A tool that is a Lambda function");

export const ToolsConfigSchema = z
  .strictObject({
    lambda: z.array(LambdaToolConfigSchema).max(50).default([]).describe("Tools that are Lambda functions"),
    mcp: McpServersConfigSchema,
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

export const NotifyConfigSchema = z
  .strictObject({
    channels: z
      ._default(NotifyChannelsSchema, {})
      .describe(
        "Where notify {channel, message} goes, by channel name: Slack, e-mail or a webhook; default: none (deployed, every notify is refused)",
      ),
    emailSender: z
      .email("must be an e-mail address")
      .optional()
      .describe("A verified SES identity notify e-mails are sent from; default: approvals.email.sender"),
  })
  .describe("The notify tool's destinations");

export const PayloadsConfigSchema = z
  .strictObject({
    expireAfterDays: z
      .never({
        error:
          "is replaced by data.goalRetentionDays: goal items and their payload objects now expire together (default: never)",
      })
      .optional()
      .describe("Replaced by data.goalRetentionDays"),
    inlineMaxBytes: wholeNumber(PAYLOAD_SETTINGS_LIMITS.inlineMaxBytes, "bytes")
      .default(PAYLOAD_SETTINGS_DEFAULTS.inlineMaxBytes)
      .describe("Items above this size keep their large values in the payload bucket"),
    maxBytes: wholeNumber(PAYLOAD_SETTINGS_LIMITS.maxBytes, "bytes")
      .default(PAYLOAD_SETTINGS_DEFAULTS.maxBytes)
      .describe("The largest workspace file or tool result accepted"),
  })
  .describe("The goal store's payload bucket (files and items over DynamoDB's 400 KB)");

/** The defaults of `operations` (docs/operations.md). */
export const OPERATIONS_DEFAULTS = {
  spendPerHourUsd: 10,
  pendingApprovalAlarmSeconds: 4 * 60 * 60,
  lambdaErrorsPerFiveMinutes: 5,
  api5xxPerFiveMinutes: 1,
  approvalTenantIds: [] as string[],
  metricsNamespace: DEFAULT_METRICS_NAMESPACE,
} as const;

export const OperationsConfigSchema = z
  .strictObject({
    alarmEmail: z
      .email("must be an e-mail address")
      .optional()
      .describe("Where alarms are e-mailed (an SNS subscription the address must confirm); default: none"),
    spendPerHourUsd: z
      .number({ error: "must be a number of US dollars above 0" })
      .positive({ error: "must be a number of US dollars above 0" })
      .max(1_000_000, { error: "must be at most 1000000" })
      .default(OPERATIONS_DEFAULTS.spendPerHourUsd)
      .describe("Model spend of all goals in one hour (USD) above which the spend alarm fires"),
    pendingApprovalAlarmSeconds: wholeNumber({ min: 60, max: MAX_APPROVAL_TIMEOUT_SECONDS }, "seconds")
      .default(OPERATIONS_DEFAULTS.pendingApprovalAlarmSeconds)
      .describe("How long the oldest pending approval may wait before its alarm fires (1 minute to 30 days)"),
    lambdaErrorsPerFiveMinutes: wholeNumber({ min: 1, max: 100_000 }, "errors")
      .default(OPERATIONS_DEFAULTS.lambdaErrorsPerFiveMinutes)
      .describe(
        "Errors of one function in 5 minutes that fire its alarm (retried errors count: a throttled model call is one)",
      ),
    api5xxPerFiveMinutes: wholeNumber({ min: 1, max: 100_000 }, "responses")
      .default(OPERATIONS_DEFAULTS.api5xxPerFiveMinutes)
      .describe("5XX answers of the REST API in 5 minutes that fire its alarm"),
    approvalTenantIds: z
      .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "must be a tenant id (an AWS account id)"))
      .default([])
      .describe(
        "Tenants besides the stack's own account whose pending approvals the oldest-approval alarm watches",
      ),
    metricsNamespace: z
      .string()
      .regex(/^[A-Za-z0-9._/#:-]{1,255}$/, "must be a CloudWatch namespace (letters, digits, . _ / # : -)")
      .refine((namespace) => !namespace.startsWith("AWS/"), "must not start with AWS/ (reserved)")
      .default(OPERATIONS_DEFAULTS.metricsNamespace)
      .describe("CloudWatch namespace of the goal metrics; give each deployment in one account its own"),
  })
  .describe("Alarms, their notifications, the dashboard and the goal metrics");

/** The defaults of `subgoals` (docs/configuration.md). */
export const SUBGOALS_DEFAULTS = {
  maxDepth: DEFAULT_SUBGOAL_MAX_DEPTH,
  maxChildren: DEFAULT_SUBGOAL_MAX_CHILDREN,
} as const;

export const SubgoalsConfigSchema = z
  .strictObject({
    maxDepth: wholeNumber({ min: 1, max: 10 }, "levels")
      .default(SUBGOALS_DEFAULTS.maxDepth)
      .describe(
        "How deep sub-goals may nest below the goal a user posted (its children are at depth 1); a deeper spawn_subgoal is refused",
      ),
    maxChildren: wholeNumber({ min: 1, max: 50 }, "sub-goals")
      .default(SUBGOALS_DEFAULTS.maxChildren)
      .describe("How many sub-goals one goal may start over its life"),
  })
  .describe("Sub-goals (spawn_subgoal, a plan step's subgoal)");

/** The defaults of `planExecute` (docs/configuration.md). */
export const PLAN_EXECUTE_DEFAULTS = { maxConcurrency: DEFAULT_PLAN_STEP_CONCURRENCY } as const;

export const PlanExecuteConfigSchema = z
  .strictObject({
    maxConcurrency: wholeNumber({ min: 1, max: MAX_PLAN_STEP_CONCURRENCY }, "steps")
      .default(PLAN_EXECUTE_DEFAULTS.maxConcurrency)
      .describe(
        "How many ready plan steps' executor turns run at once (the ExecuteBatch Map state's MaxConcurrency)",
      ),
  })
  .describe("Plan-and-Execute");

/** The defaults of `versions` (docs/deploy.md, "Updating and rolling back"). */
export const VERSIONS_DEFAULTS = { keep: 3 } as const;

export const VersionsConfigSchema = z
  .strictObject({
    keep: wholeNumber({ min: 1, max: 50 }, "versions")
      .default(VERSIONS_DEFAULTS.keep)
      .describe(
        "How many of the newest deployed versions `goal-loops versions --prune` keeps besides the live one and every version a goal still runs on",
      ),
  })
  .describe("Deployed versions (each deploy publishes one; goals finish on theirs)");

export const CompensationConfigSchema = z
  .strictObject({
    onAbandon: z
      .enum(ON_ABANDON)
      .default("keep")
      .describe(
        "What becomes of a plan_execute goal's completed steps when it ends terminated or cancelled: keep them, or compensate them (undone in reverse order); a GoalSpec's onAbandon wins",
      ),
  })
  .describe("Compensation sagas");

export const GoalLoopsConfigSchema = z
  .strictObject({
    $schema: z.string().optional().describe("The JSON Schema editors check this file with"),
    stackName: StackNameSchema,
    models: ModelsConfigSchema.default({ dataResidency: false }),
    approvals: ApprovalsConfigSchema.default({
      timeoutSeconds: DEFAULT_APPROVAL_TIMEOUT_SECONDS,
      slack: { approverUserIds: [] },
      email: { approvers: [] },
    }),
    http: HttpConfigSchema.default({ allowedHosts: [] }),
    tools: ToolsConfigSchema.default({ lambda: [], mcp: [] }),
    payloads: PayloadsConfigSchema.default(PAYLOAD_SETTINGS_DEFAULTS),
    operations: OperationsConfigSchema.default({ ...OPERATIONS_DEFAULTS, approvalTenantIds: [] }),
    notify: NotifyConfigSchema.default({ channels: {} }),
    logs: LogsConfigSchema.default({ retentionDays: DEFAULT_LOG_RETENTION_DAYS, removalPolicy: "retain" }),
    data: DataConfigSchema.default({ removalPolicy: "retain" }),
    tenants: z.optional(TenantsSettingsSchema),
    secrets: SecretsConfigSchema.default({}),
    api: ApiConfigSchema.default({
      auth: { mode: "iam" },
      throttling: DEFAULT_API_THROTTLING,
      stream: { maxOpen: DEFAULT_MAX_OPEN_STREAMS },
      manageAccountCloudWatchRole: false,
    }),
    subgoals: SubgoalsConfigSchema.default(SUBGOALS_DEFAULTS),
    compensation: CompensationConfigSchema.default({ onAbandon: "keep" }),
    planExecute: PlanExecuteConfigSchema.default(PLAN_EXECUTE_DEFAULTS),
    versions: VersionsConfigSchema.default(VERSIONS_DEFAULTS),
  })
  .describe("goal-loops deployment configuration")
  .superRefine((config, context) => {
    checkNotifyChannels(config, context);
    const { heavy, fast, allowed } = config.models;
    for (const [role, id] of [
      ["heavy", heavy],
      ["fast", fast],
    ] as const) {
      if (id !== undefined && allowed !== undefined && !allowed.includes(id)) {
        context.addIssue({
          code: "custom",
          path: ["models", role],
          message: `'${id}' must also be in models.allowed`,
        });
      }
    }
  });

/**
 * A webhook's host must be one `http.allowedHosts` lists: one list of every host the deployment's
 * tools may reach, reviewed in one place. An e-mail channel needs a sender identity.
 */
function checkNotifyChannels(
  config: {
    readonly notify: z.output<typeof NotifyConfigSchema>;
    readonly http: z.output<typeof HttpConfigSchema>;
    readonly approvals: z.output<typeof ApprovalsConfigSchema>;
  },
  context: z.RefinementCtx,
): void {
  for (const [name, destination] of Object.entries(config.notify.channels)) {
    if (destination.type === "webhook") {
      const host = new URL(destination.url).hostname.toLowerCase();
      if (!config.http.allowedHosts.includes(host)) {
        context.addIssue({
          code: "custom",
          path: ["notify", "channels", name, "url"],
          message: `host '${host}' must also be in http.allowedHosts`,
        });
      }
    }
    if (
      destination.type === "email" &&
      (config.notify.emailSender ?? config.approvals.email.sender) === undefined
    ) {
      context.addIssue({
        code: "custom",
        path: ["notify", "channels", name],
        message: "an e-mail channel needs a sender: set notify.emailSender (or approvals.email.sender)",
      });
    }
  }
}

/**
 * Which Bedrock models the loops call. A model id is a foundation model id, an inference profile id
 * (`global.…`, `us.…`, `eu.…`) or an ARN. Synth checks each against the stack's region: a profile
 * the region cannot call, or a model with no profile for its geography, fails naming the field; a
 * model Bedrock marks Legacy is a warning. A model of the catalog (lib/config/bedrock-model-catalog.ts)
 * given by its foundation model id gets its `global.` profile, or the region's with `dataResidency`.
 */
export interface ModelsConfig {
  /**
   * Bedrock model of the heavy roles: reason, plan, attempt, reflect, reconcile.
   *
   * @default - Claude Sonnet 5.5 through `global.` (DEFAULT_HEAVY_MODEL_ID); with `dataResidency`
   * through the region's geographic profile (`us.`, `eu.`)
   */
  readonly heavy?: string;
  /**
   * Bedrock model of the fast roles: execute, evaluate, judge, summarize, select.
   *
   * @default - Claude Haiku 5.5 through `global.` (DEFAULT_FAST_MODEL_ID); with `dataResidency` the
   * region's geographic profile of Claude Haiku 5.5 (`us.`, `jp.`), else of Claude Haiku 4.5 (`eu.`, `au.`)
   */
  readonly fast?: string;
  /**
   * The only models a GoalSpec's `models` may name (IAM allows no other). Must hold `heavy` and `fast`.
   *
   * @default - `heavy` and `fast`
   */
  readonly allowed?: readonly string[];
  /**
   * Keep model requests inside the geography of the stack's region: the defaults and foundation
   * model ids resolve to the region's geographic inference profiles (10 % over list price), and a
   * `global.` profile is refused. Needs a stack with a concrete region.
   *
   * @default false - `global.` profiles, at list price, which may serve a request in any commercial region
   */
  readonly dataResidency?: boolean;
  /**
   * Thinking per model role. Each role's setting is checked at synth against the model that serves
   * it (its tier's): a mode the model refuses (`disabled` on Claude Sonnet 5.5, a manual budget
   * where only adaptive thinking is accepted) fails naming the field. A GoalSpec's
   * `models.thinking` overrides it per goal.
   *
   * @default - every role `adaptive`; effort `high` for reason, plan, attempt, evaluate, reflect and
   * judge, `medium` for execute, `low` for summarize, select and reconcile
   */
  readonly thinking?: Partial<Record<ModelRole, RoleThinkingConfig>>;
  /**
   * Bedrock quotas by model id, inference profile id or `prefix*` (Service Quotas' requests and
   * tokens per minute; `goal-loops preflight` prints the account's beside these): every goal's
   * calls to the model are paced within them, in the order they asked, and a goal without capacity
   * waits instead of failing.
   *
   * @default - no pacing: Bedrock's throttles still only make goals wait
   */
  readonly quotas?: Readonly<Record<string, ModelQuotaConfig>>;
}

/** One model's Bedrock quota (`models.quotas.<model>`). */
export interface ModelQuotaConfig {
  /** Requests per minute the account may send the model (1 to 1,000,000). */
  readonly requestsPerMinute: number;
  /** Tokens per minute, counted as Bedrock counts them (1,000 to 1,000,000,000). */
  readonly tokensPerMinute: number;
  /**
   * Seconds' worth of the quota that may go at once after a quiet spell (1 to 60).
   *
   * @default 60
   */
  readonly burstSeconds?: number;
}

/** One model role's thinking (`models.thinking.<role>`); a field left out keeps the role's default. */
export interface RoleThinkingConfig {
  /**
   * `adaptive` (the model decides when and how much to think, at `effort`), `lowest` (the least the
   * role's model allows: `between_tools` on Claude Sonnet 5.5, `disabled` on Claude Haiku 5.5), or a
   * thinking type the model takes: `between_tools`, `disabled`, `enabled` (a manual budget).
   *
   * @default "adaptive"
   */
  readonly mode?: "adaptive" | "lowest" | "between_tools" | "disabled" | "enabled";
  /**
   * `low`, `medium`, `high`, `xhigh` or `max`: sent as `output_config.effort`; on a model with manual
   * budgets only (Claude Haiku 4.5), `adaptive` thinks with a budget picked by it (none at `low`).
   *
   * @default - the role's (see `thinking`)
   */
  readonly effort?: "low" | "medium" | "high" | "xhigh" | "max";
  /**
   * Thinking tokens for mode `enabled` (1,024 to 128,000); only with it.
   *
   * @default - none
   */
  readonly budgetTokens?: number;
}

/** The Slack door. */
export interface SlackConfig {
  /**
   * The tenant (an AWS account id, or a tenant of `tenants`) whose goals and approvals this Slack
   * workspace may see and decide from every channel `channelTenants` does not name; every other
   * tenant's are answered as unknown.
   *
   * @default - the deploying account (the tenant of API callers signing with its credentials)
   */
  readonly tenantId?: string;
  /**
   * Slack channel ids (`C0123ABCD`) mapped to the tenant a click or `/goal` command from that
   * channel acts for; every other channel acts for `tenantId`. Another tenant's goal or approval
   * is answered as unknown, as everywhere.
   *
   * @default - none: every channel acts for `tenantId`
   */
  readonly channelTenants?: Readonly<Record<string, string>>;
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
   * `read` and `reversible` run at once; `irreversible` waits for a human approval. A reversible
   * tool should have a `compensate` function, which a corrective revision calls to undo its last call.
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
  /**
   * The function a corrective revision calls to undo the tool's last call: it gets `{tool, input,
   * result, goalId, runId, toolUseId, idempotencyKey, tenantId}` and answers any JSON, or
   * `{error: {name, message}}`. Give `entry` (bundled like the tool) or `functionArn`.
   *
   * @default - none: a corrective revision cannot undo this tool's calls
   */
  readonly compensate?: { readonly entry?: string; readonly functionArn?: string };
  /**
   * A DynamoDB table of the tools' own, by name (1-32 lower-case letters, digits or `-`): one table
   * per name (partition key `pk`, sort key `sk`, both strings), which the `entry` function and its
   * compensate function may read and write; its name is in their `TOOL_TABLE_NAME`.
   *
   * @default - none: the function can reach nothing but its logs
   */
  readonly table?: string;
}

/** Your own tools, granted per goal through a GoalSpec's `tools[]`. */
export interface ToolsConfig {
  /**
   * Tools that are Lambda functions.
   *
   * @default []
   */
  readonly lambda?: readonly LambdaToolConfig[];
  /**
   * MCP servers reached over Streamable HTTP: a GoalSpec grants their tools as `<server>__<tool>`
   * or all of one server's as `<server>__*`.
   *
   * @default []
   */
  readonly mcp?: readonly McpServerConfigInput[];
}

/** The goal store's payload bucket (files and items over DynamoDB's 400 KB). */
export interface PayloadsConfig {
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

/** Alarms, their notifications, the dashboard and the goal metrics (docs/operations.md). */
export interface OperationsConfig {
  /**
   * Where alarms are e-mailed: an e-mail subscription to the alarm topic, which the address must
   * confirm once.
   *
   * @default - none: alarms still go to the topic, for subscriptions of your own
   */
  readonly alarmEmail?: string;
  /**
   * Model spend of all goals in one hour, in US dollars, above which the spend alarm fires.
   *
   * @default 10
   */
  readonly spendPerHourUsd?: number;
  /**
   * How long the oldest pending approval may wait, in seconds (60 to 2,592,000), before its alarm
   * fires. Keep it below `approvals.timeoutSeconds`, or approvals expire before anyone is told.
   *
   * @default 14400 (4 hours)
   */
  readonly pendingApprovalAlarmSeconds?: number;
  /**
   * Errors of one function in 5 minutes that fire its alarm. Errors the state machine retries count
   * too (a throttled model call is one); a goal that fails for good fires the failed-executions alarm.
   *
   * @default 5
   */
  readonly lambdaErrorsPerFiveMinutes?: number;
  /**
   * 5XX answers of the REST API in 5 minutes that fire its alarm.
   *
   * @default 1
   */
  readonly api5xxPerFiveMinutes?: number;
  /**
   * Tenants (the AWS account ids of API callers) besides the stack's own account whose pending
   * approvals the oldest-approval alarm watches.
   *
   * @default []
   */
  readonly approvalTenantIds?: readonly string[];
  /**
   * CloudWatch namespace of the goal metrics. Give each deployment in one account and region its
   * own, or their alarms and dashboards add up each other's goals.
   *
   * @default "GoalLoops"
   */
  readonly metricsNamespace?: string;
}

/** `notify` posts to a Slack channel with the Slack door's bot token (`chat.postMessage`). */
export interface SlackNotifyDestination {
  readonly type: "slack";
  /** The channel id (`C0123ABCD`); the bot must be a member of it. */
  readonly channel: string;
}

/** `notify` sends an e-mail through SES v2 from `notify.emailSender`. */
export interface EmailNotifyDestination {
  readonly type: "email";
  /** Recipients (1 to 50 addresses). */
  readonly to: readonly string[];
  /** @default "goal-loops notification" */
  readonly subject?: string;
}

/**
 * `notify` POSTs `{channel, message, goalId, idempotencyKey}` as JSON with an `Idempotency-Key`
 * header; any 2xx answer is delivered.
 */
export interface WebhookNotifyDestination {
  readonly type: "webhook";
  /** An https URL whose host is in `http.allowedHosts` (plain http only to 127.0.0.1 or localhost). */
  readonly url: string;
}

/** The notify tool's destinations. */
export interface NotifyConfig {
  /**
   * Where `notify {channel, message}` goes, by the channel name the model passes (letters, digits,
   * `.`, `_`, `-`). Deployed, a channel not listed here is refused; locally every message goes to
   * the outbox.
   *
   * @default {} - deployed, every notify is refused
   */
  readonly channels?: Readonly<
    Record<string, SlackNotifyDestination | EmailNotifyDestination | WebhookNotifyDestination>
  >;
  /**
   * A verified SES identity (an address) notify e-mails are sent from.
   *
   * @default - `approvals.email.sender`; an e-mail channel without either is refused at synth
   */
  readonly emailSender?: string;
}

/** Sub-goals (`spawn_subgoal`, a plan step's `subgoal`). */
export interface SubgoalsConfig {
  /**
   * How deep sub-goals may nest below the goal a user posted (1 to 10): its children are at depth 1,
   * their children at 2. A `spawn_subgoal` deeper than this is refused as a tool error.
   *
   * @default 3
   */
  readonly maxDepth?: number;
  /**
   * How many sub-goals one goal may start over its life (1 to 50).
   *
   * @default 10
   */
  readonly maxChildren?: number;
}

/** Plan-and-Execute (docs/goal-contract.md). */
export interface PlanExecuteConfig {
  /**
   * How many ready plan steps' executor turns run at once (1 to 20): the ExecuteBatch Map state's
   * `MaxConcurrency`.
   *
   * @default 4
   */
  readonly maxConcurrency?: number;
}

/** Compensation sagas (docs/human-in-the-loop.md). */
export interface CompensationConfig {
  /**
   * What becomes of a plan_execute goal's completed steps when it ends `terminated` or `cancelled`:
   * `keep` them, or `compensate` them (each call undone by its tool's compensator, newest first). A
   * GoalSpec's `onAbandon` wins over this.
   *
   * @default "keep"
   */
  readonly onAbandon?: OnAbandon;
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
  /** @default - every operations setting's default */
  readonly operations?: OperationsConfig;
  /** @default - no notify channels */
  readonly notify?: NotifyConfig;
  /**
   * The CloudFormation stack `cdk deploy` creates from this file (`bin/app.ts`); ignored by the
   * construct, which lives in a stack of yours.
   *
   * @default "GoalLoopsStack"
   */
  readonly stackName?: string;
  /** @default - 30 days, kept when the stack is deleted */
  readonly logs?: LogsConfig;
  /** @default - kept when the stack is deleted */
  readonly data?: DataConfig;
  /** @default - IAM, 50 requests per second, bursts of 100; the account's CloudWatch role left alone */
  readonly api?: ApiConfig;
  /**
   * Tenants inside the deployment: IAM principals to tenants, which tenants exist, the operators,
   * and each tenant's limits.
   *
   * @default - every IAM caller is its account's tenant, no limit
   */
  readonly tenants?: TenantsSettingsInput;
  /**
   * Who owns each secret the stack reads (`slackSigningSecret`, `slackBotToken`, `emailLinkKey`,
   * `mcp:<server>`) and how old it may get (`rotateAfterDays`, 90) before preflight names it.
   *
   * @default - no owners
   */
  readonly secrets?: SecretsConfigInput;
  /** @default - depth 3, 10 sub-goals per goal */
  readonly subgoals?: SubgoalsConfig;
  /** @default - abandoned plans keep their work */
  readonly compensation?: CompensationConfig;
  /** @default - 4 plan steps at once */
  readonly planExecute?: PlanExecuteConfig;
  /** @default - `goal-loops versions --prune` keeps the 3 newest versions besides those in use */
  readonly versions?: VersionsConfig;
}

export type VersionsConfig = z.input<typeof VersionsConfigSchema>;

/** The configuration with every default applied. */
export type GoalLoopsConfig = z.output<typeof GoalLoopsConfigSchema>;

// The documented interfaces above and the schema must describe the same input: the compiler says
// where they part.
GoalLoopsConfigSchema satisfies z.ZodType<GoalLoopsConfig, GoalLoopsConfigInput>;
PayloadsConfigSchema satisfies z.ZodType<Required<PayloadsConfig>, PayloadsConfig>;
