import { MODEL_ROLES } from "../models/model-roles";
import * as z from "../zod";
import { ForkedFromSchema } from "./fork";
import { IdentifierSchema } from "./identifier";
import { assertWithinJsonBounds, GOAL_SPEC_BOUNDS } from "./json-bounds";
import { ThinkingSettingsSchema } from "./thinking-settings";
import { parseOrThrow } from "./validation";

/**
 * A `tools[]` entry: a tool's name, or `<server>__*` for every tool of one MCP server (its tools
 * are named `<server>__<tool>`, DESIGN §6).
 */
const ToolGrantSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .string()
    .check(
      z.regex(
        /^(?:[A-Za-z0-9][A-Za-z0-9_-]{0,63}|[A-Za-z][A-Za-z0-9-]{0,31}__\*)$/,
        "must be a tool name (1-64 letters, digits, '-' or '_', starting with a letter or digit) or <mcp-server>__*",
      ),
    ),
);

const NonEmptyText = (max: number) =>
  z.string().check(z.trim(), z.minLength(1, "must not be empty"), z.maxLength(max));

/** Workspace paths are relative, normalised and cannot climb out of the goal's workspace. */
export const WorkspacePathSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.string().check(
    z.minLength(1, "must not be empty"),
    z.maxLength(512),
    z.refine(
      (path) => !path.startsWith("/") && !path.split("/").some((part) => part === ".." || part === ""),
      {
        message: "must be a relative path without '..' or empty segments",
      },
    ),
  ),
);

export const ArtifactCheckSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    kind: z.literal("artifact"),
    path: WorkspacePathSchema,
    contains: z.optional(z.string().check(z.minLength(1))),
  }),
);

/** A predicate over a recorded tool result: all given conditions must hold. */
export const ToolResultExpectationSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    status: z._default(z.enum(["success", "error"]), "success"),
    contains: z.optional(z.string().check(z.minLength(1))),
    equals: z.optional(z.json()),
  }),
);

export const ToolResultCheckSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    kind: z.literal("tool_result"),
    tool: IdentifierSchema,
    expect: ToolResultExpectationSchema,
  }),
);

export const ApprovalCheckSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    kind: z.literal("approval"),
    prompt: NonEmptyText(2000),
  }),
);

/** The weakest evidence: a model's judgement against a rubric, labelled as such wherever it appears. */
export const ModelJudgeCheckSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    kind: z.literal("model_judge"),
    rubric: NonEmptyText(4000),
  }),
);

export const VerifySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.discriminatedUnion("kind", [
    ArtifactCheckSchema,
    ToolResultCheckSchema,
    ApprovalCheckSchema,
    ModelJudgeCheckSchema,
  ]),
);
export type Verify = z.infer<typeof VerifySchema>;
export type VerifyKind = Verify["kind"];

export const SuccessCheckSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    id: IdentifierSchema,
    description: NonEmptyText(1000),
    verify: VerifySchema,
  }),
);
export type SuccessCheck = z.infer<typeof SuccessCheckSchema>;

export const DEFAULT_LIMITS = {
  maxSteps: 25,
  maxNoProgressCycles: 3,
  maxCostUsd: 1.0,
  maxReplans: 3,
  maxAttempts: 3,
} as const;

export const LimitsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    maxSteps: z._default(z.number().check(z.int(), z.gte(1), z.lte(100_000)), DEFAULT_LIMITS.maxSteps),
    maxCostUsd: z._default(z.number().check(z.positive(), z.lte(10_000)), DEFAULT_LIMITS.maxCostUsd),
    deadline: z.optional(z.iso.datetime({ offset: true })),
    maxNoProgressCycles: z._default(
      z.number().check(z.int(), z.gte(1), z.lte(1000)),
      DEFAULT_LIMITS.maxNoProgressCycles,
    ),
    maxReplans: z._default(z.number().check(z.int(), z.gte(0), z.lte(1000)), DEFAULT_LIMITS.maxReplans),
    maxAttempts: z._default(z.number().check(z.int(), z.gte(1), z.lte(1000)), DEFAULT_LIMITS.maxAttempts),
  }),
);
export type Limits = z.infer<typeof LimitsSchema>;

/**
 * The limits, each optional and without the spec's defaults: a patch or a request that names one
 * limit leaves the others to whoever applies it (a limit decision keeps them; a sub-goal carves
 * them from its parent's budget).
 */
export const OptionalLimitsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    maxSteps: z.optional(LimitsSchema.shape.maxSteps.def.innerType),
    maxCostUsd: z.optional(LimitsSchema.shape.maxCostUsd.def.innerType),
    deadline: LimitsSchema.shape.deadline,
    maxNoProgressCycles: z.optional(LimitsSchema.shape.maxNoProgressCycles.def.innerType),
    maxReplans: z.optional(LimitsSchema.shape.maxReplans.def.innerType),
    maxAttempts: z.optional(LimitsSchema.shape.maxAttempts.def.innerType),
  }),
);

export const PATTERNS = ["react", "plan_execute", "reflexion"] as const;
export const PatternSchema = /* @__PURE__ */ z.lazySchema(() => z.enum(PATTERNS));
export type Pattern = z.infer<typeof PatternSchema>;
export const RequestedPatternSchema = /* @__PURE__ */ z.lazySchema(() => z.enum([...PATTERNS, "auto"]));
export type RequestedPattern = z.infer<typeof RequestedPatternSchema>;

export const HintsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    /** The route is unknown and has to be found by trying things. */
    exploratory: z.optional(z.boolean()),
    /** The result's quality matters more than its speed: attempt, evaluate, reflect, retry. */
    qualityCritical: z.optional(z.boolean()),
    /** A known procedure: `true`, or its steps in order. */
    procedure: z.optional(
      z.union([z.boolean(), z.array(NonEmptyText(500)).check(z.minLength(1), z.maxLength(50))]),
    ),
  }),
);
export type Hints = z.infer<typeof HintsSchema>;

export const APPROVAL_CHANNELS = ["api", "cli", "slack", "email"] as const;

export const ApprovalPolicySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    /** Tools that always need a human approval before they run, whatever their risk. */
    requireFor: z._default(z.array(IdentifierSchema).check(z.maxLength(50)), []),
    /** Tools that skip the approval gate even when irreversible. */
    preAuthorized: z._default(z.array(IdentifierSchema).check(z.maxLength(50)), []),
    channels: z._default(z.array(z.enum(APPROVAL_CHANNELS)).check(z.maxLength(4)), ["api"]),
    /** Slack channel id for approval messages (`C0123…`), when `slack` is a channel. */
    slackChannel: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    /** Address for approval emails, when `email` is a channel. */
    email: z.optional(z.email()),
  }),
);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

// A function, called by the schema's builder: schemas built at import would cost every cold start.
const modelOverrideShape = () =>
  Object.fromEntries(
    ["default", ...MODEL_ROLES].map((key) => [
      key,
      z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    ]),
  ) as Record<"default" | (typeof MODEL_ROLES)[number], z.ZodMiniOptional<z.ZodMiniString>>;

/**
 * Per-role model ids; `default` applies to every role not named. Checked against the allow-list.
 * `thinking` sets a role's thinking mode and effort over the deployment's, checked against the
 * role's model when the goal is taken in.
 */
export const ModelOverridesSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    ...modelOverrideShape(),
    thinking: z.optional(ThinkingSettingsSchema),
  }),
);
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
  ctx: z.core.$RefinementCtx,
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
export const GoalSpecSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      objective: NonEmptyText(4000),
      scope: z.optional(z.array(NonEmptyText(1000)).check(z.maxLength(50))),
      successChecks: z
        .array(SuccessCheckSchema)
        .check(
          z.minLength(1, "must list at least one success check"),
          z.maxLength(20, "must list at most 20 success checks"),
        ),
      constraints: z.optional(z.array(NonEmptyText(1000)).check(z.maxLength(50))),
      limits: z._default(LimitsSchema, () => LimitsSchema.parse({})),
      pattern: z._default(RequestedPatternSchema, "auto"),
      hints: z.optional(HintsSchema),
      tools: z.optional(z.array(ToolGrantSchema).check(z.maxLength(50))),
      approval: z._default(ApprovalPolicySchema, () => ApprovalPolicySchema.parse({})),
      models: z.optional(ModelOverridesSchema),
      /** Set by the system for a sub-goal; refused in a GoalSpec a user submits (intake). */
      parentGoalId: z.optional(IdentifierSchema),
      /** Set by the system for a fork (`POST /goals/{goalId}/fork`); refused in a GoalSpec a user submits. */
      forkedFrom: z.optional(ForkedFromSchema),
      /**
       * What becomes of a plan_execute goal's completed steps when it ends `terminated` or `cancelled`:
       * `keep` them, or `compensate` them (undone in reverse order). Absent: the deployment's setting.
       */
      onAbandon: z.optional(z.enum(ON_ABANDON)),
      /** How its model calls queue when a model's quota is short; absent: `normal` (a sub-goal: its parent's). */
      priority: z.optional(z.enum(GOAL_PRIORITIES)),
    })
    .check(z.superRefine(refuseDuplicateCheckIds)),
);

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
