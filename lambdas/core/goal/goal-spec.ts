import * as z from "zod";
import { MODEL_ROLES } from "../models/model-roles";
import { ForkedFromSchema } from "./fork";
import { assertWithinJsonBounds, GOAL_SPEC_BOUNDS } from "./json-bounds";
import { ThinkingSettingsSchema } from "./thinking-settings";
import { parseOrThrow } from "./validation";

/** Ids that are safe in keys, URLs and prompts: `tests-pass`, `report_1`. */
const IdentifierSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
    "must be 1-64 letters, digits, '-' or '_', starting with a letter or digit",
  );

/**
 * A `tools[]` entry: a tool's name, or `<server>__*` for every tool of one MCP server (its tools
 * are named `<server>__<tool>`, DESIGN §6).
 */
const ToolGrantSchema = z
  .string()
  .regex(
    /^(?:[A-Za-z0-9][A-Za-z0-9_-]{0,63}|[A-Za-z][A-Za-z0-9-]{0,31}__\*)$/,
    "must be a tool name (1-64 letters, digits, '-' or '_', starting with a letter or digit) or <mcp-server>__*",
  );

const NonEmptyText = (max: number) => z.string().trim().min(1, "must not be empty").max(max);

/** Workspace paths are relative, normalised and cannot climb out of the goal's workspace. */
export const WorkspacePathSchema = z
  .string()
  .min(1, "must not be empty")
  .max(512)
  .refine((path) => !path.startsWith("/") && !path.split("/").some((part) => part === ".." || part === ""), {
    message: "must be a relative path without '..' or empty segments",
  });

export const ArtifactCheckSchema = z
  .object({
    kind: z.literal("artifact"),
    path: WorkspacePathSchema,
    contains: z.string().min(1).optional(),
  })
  .strict();

/** A predicate over a recorded tool result: all given conditions must hold. */
export const ToolResultExpectationSchema = z
  .object({
    status: z.enum(["success", "error"]).default("success"),
    contains: z.string().min(1).optional(),
    equals: z.json().optional(),
  })
  .strict();

export const ToolResultCheckSchema = z
  .object({
    kind: z.literal("tool_result"),
    tool: IdentifierSchema,
    expect: ToolResultExpectationSchema,
  })
  .strict();

export const ApprovalCheckSchema = z
  .object({
    kind: z.literal("approval"),
    prompt: NonEmptyText(2000),
  })
  .strict();

/** The weakest evidence: a model's judgement against a rubric, labelled as such wherever it appears. */
export const ModelJudgeCheckSchema = z
  .object({
    kind: z.literal("model_judge"),
    rubric: NonEmptyText(4000),
  })
  .strict();

export const VerifySchema = z.discriminatedUnion("kind", [
  ArtifactCheckSchema,
  ToolResultCheckSchema,
  ApprovalCheckSchema,
  ModelJudgeCheckSchema,
]);
export type Verify = z.infer<typeof VerifySchema>;
export type VerifyKind = Verify["kind"];

export const SuccessCheckSchema = z
  .object({
    id: IdentifierSchema,
    description: NonEmptyText(1000),
    verify: VerifySchema,
  })
  .strict();
export type SuccessCheck = z.infer<typeof SuccessCheckSchema>;

export const DEFAULT_LIMITS = {
  maxSteps: 25,
  maxNoProgressCycles: 3,
  maxCostUsd: 1.0,
  maxReplans: 3,
  maxAttempts: 3,
} as const;

export const LimitsSchema = z
  .object({
    maxSteps: z.number().int().min(1).max(100_000).default(DEFAULT_LIMITS.maxSteps),
    maxCostUsd: z.number().positive().max(10_000).default(DEFAULT_LIMITS.maxCostUsd),
    deadline: z.iso.datetime({ offset: true }).optional(),
    maxNoProgressCycles: z.number().int().min(1).max(1000).default(DEFAULT_LIMITS.maxNoProgressCycles),
    maxReplans: z.number().int().min(0).max(1000).default(DEFAULT_LIMITS.maxReplans),
    maxAttempts: z.number().int().min(1).max(1000).default(DEFAULT_LIMITS.maxAttempts),
  })
  .strict();
export type Limits = z.infer<typeof LimitsSchema>;

/**
 * The limits, each optional and without the spec's defaults: a patch or a request that names one
 * limit leaves the others to whoever applies it (a limit decision keeps them; a sub-goal carves
 * them from its parent's budget).
 */
export const OptionalLimitsSchema = z
  .object({
    maxSteps: LimitsSchema.shape.maxSteps.unwrap().optional(),
    maxCostUsd: LimitsSchema.shape.maxCostUsd.unwrap().optional(),
    deadline: LimitsSchema.shape.deadline,
    maxNoProgressCycles: LimitsSchema.shape.maxNoProgressCycles.unwrap().optional(),
    maxReplans: LimitsSchema.shape.maxReplans.unwrap().optional(),
    maxAttempts: LimitsSchema.shape.maxAttempts.unwrap().optional(),
  })
  .strict();

export const PATTERNS = ["react", "plan_execute", "reflexion"] as const;
export const PatternSchema = z.enum(PATTERNS);
export type Pattern = z.infer<typeof PatternSchema>;
export const RequestedPatternSchema = z.enum([...PATTERNS, "auto"]);
export type RequestedPattern = z.infer<typeof RequestedPatternSchema>;

export const HintsSchema = z
  .object({
    /** The route is unknown and has to be found by trying things. */
    exploratory: z.boolean().optional(),
    /** The result's quality matters more than its speed: attempt, evaluate, reflect, retry. */
    qualityCritical: z.boolean().optional(),
    /** A known procedure: `true`, or its steps in order. */
    procedure: z.union([z.boolean(), z.array(NonEmptyText(500)).min(1).max(50)]).optional(),
  })
  .strict();
export type Hints = z.infer<typeof HintsSchema>;

export const APPROVAL_CHANNELS = ["api", "cli", "slack", "email"] as const;

export const ApprovalPolicySchema = z
  .object({
    /** Tools that always need a human approval before they run, whatever their risk. */
    requireFor: z.array(IdentifierSchema).max(50).default([]),
    /** Tools that skip the approval gate even when irreversible. */
    preAuthorized: z.array(IdentifierSchema).max(50).default([]),
    channels: z.array(z.enum(APPROVAL_CHANNELS)).max(4).default(["api"]),
    /** Slack channel id for approval messages (`C0123…`), when `slack` is a channel. */
    slackChannel: z.string().min(1).max(64).optional(),
    /** Address for approval emails, when `email` is a channel. */
    email: z.email().optional(),
  })
  .strict();
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

const modelOverrideShape = Object.fromEntries(
  ["default", ...MODEL_ROLES].map((key) => [key, z.string().min(1).max(256).optional()]),
) as Record<"default" | (typeof MODEL_ROLES)[number], z.ZodOptional<z.ZodString>>;

/**
 * Per-role model ids; `default` applies to every role not named. Checked against the allow-list.
 * `thinking` sets a role's thinking mode and effort over the deployment's, checked against the
 * role's model when the goal is taken in.
 */
export const ModelOverridesSchema = z
  .object({ ...modelOverrideShape, thinking: ThinkingSettingsSchema.optional() })
  .strict();
export type ModelOverrides = z.infer<typeof ModelOverridesSchema>;

/**
 * How a goal's model calls queue for capacity when a model's quota is short (`priority`; absent is
 * `normal`): high books the quota first, low last, and none starves (models/capacity).
 */
export const GOAL_PRIORITIES = ["high", "normal", "low"] as const;
export type GoalPriority = (typeof GOAL_PRIORITIES)[number];

/** What an abandoned plan_execute goal does with its completed steps (GoalSpec and config `onAbandon`). */
export const ON_ABANDON = ["keep", "compensate"] as const;
export type OnAbandon = (typeof ON_ABANDON)[number];

/** Success check ids are unique within a contract: evidence and revisions name a check by its id. */
export function refuseDuplicateCheckIds(
  contract: { readonly successChecks: readonly { readonly id: string }[] },
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  contract.successChecks.forEach((check, index) => {
    if (seen.has(check.id)) {
      ctx.addIssue({
        code: "custom",
        path: ["successChecks", index, "id"],
        message: `duplicate success check id '${check.id}'`,
      });
    }
    seen.add(check.id);
  });
}

/** The goal contract a user submits (`POST /goals`). zod is the single source of this shape. */
export const GoalSpecSchema = z
  .object({
    objective: NonEmptyText(4000),
    scope: z.array(NonEmptyText(1000)).max(50).optional(),
    successChecks: z
      .array(SuccessCheckSchema)
      .min(1, "must list at least one success check")
      .max(20, "must list at most 20 success checks"),
    constraints: z.array(NonEmptyText(1000)).max(50).optional(),
    limits: LimitsSchema.default(() => LimitsSchema.parse({})),
    pattern: RequestedPatternSchema.default("auto"),
    hints: HintsSchema.optional(),
    tools: z.array(ToolGrantSchema).max(50).optional(),
    approval: ApprovalPolicySchema.default(() => ApprovalPolicySchema.parse({})),
    models: ModelOverridesSchema.optional(),
    /** Set by the system for a sub-goal; refused in a GoalSpec a user submits (intake). */
    parentGoalId: IdentifierSchema.optional(),
    /** Set by the system for a fork (`POST /goals/{goalId}/fork`); refused in a GoalSpec a user submits. */
    forkedFrom: ForkedFromSchema.optional(),
    /**
     * What becomes of a plan_execute goal's completed steps when it ends `terminated` or `cancelled`:
     * `keep` them, or `compensate` them (undone in reverse order). Absent: the deployment's setting.
     */
    onAbandon: z.enum(ON_ABANDON).optional(),
    /** How its model calls queue when a model's quota is short; absent: `normal` (a sub-goal: its parent's). */
    priority: z.enum(GOAL_PRIORITIES).optional(),
  })
  .strict()
  .superRefine(refuseDuplicateCheckIds);

/** The GoalSpec as submitted (defaults optional). */
export type GoalSpecInput = z.input<typeof GoalSpecSchema>;
/** The GoalSpec after parsing (defaults filled in). */
export type GoalSpec = z.output<typeof GoalSpecSchema>;

/**
 * Parses a submitted GoalSpec, or throws a ValidationError naming each bad field's path, or the
 * nesting or size limit it is past (checked first: zod's recursion would overflow the stack).
 */
export function parseGoalSpec(input: unknown): GoalSpec {
  assertWithinJsonBounds(input, "GoalSpec", GOAL_SPEC_BOUNDS);
  return parseOrThrow(GoalSpecSchema, input, "GoalSpec");
}

/** The GoalSpec as JSON Schema (draft 2020-12), generated from zod for docs, OpenAPI and API Gateway. */
export function goalSpecJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(GoalSpecSchema, { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
}
