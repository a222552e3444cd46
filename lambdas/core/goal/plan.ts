import * as z from "../zod";
import { IdentifierSchema } from "./identifier";
import { SubgoalRequestSchema } from "./subgoals";

/**
 * The plan as the goal record keeps it (plan_execute's `planState`): the step shape the planner
 * answers in, each step's status, pending and past replans, and a pending step decision. Shapes
 * only, so that the record, the shared loop (Act's off-plan check, the step-decision gate) and the
 * plan_execute pattern read one definition; what Plan and Observe do with them lives in
 * patterns/plan-execute/.
 */

/** A plan longer than this is not a plan but a script; it also bounds the goal record (one item). */
export const MAX_PLAN_STEPS = 20;

/** How many ready steps' executor turns run at once by default (config `planExecute.maxConcurrency`). */
export const DEFAULT_PLAN_STEP_CONCURRENCY = 4;
/** The most a deployment lets run at once: a whole plan. */
export const MAX_PLAN_STEP_CONCURRENCY = MAX_PLAN_STEPS;

const Text = (max: number) =>
  z.string().check(z.trim(), z.minLength(1, "must not be empty"), z.maxLength(max));

/**
 * A machine-checkable completion predicate over the step's tool result (its text or JSON): every
 * given condition must hold. Without one, a successful call completes the step.
 */
export const StepExpectSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .object({
      contains: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
      equals: z.optional(z.json()),
    })
    .check(
      z.refine((expect) => expect.contains !== undefined || expect.equals !== undefined, {
        message: "must give contains or equals",
      }),
    ),
);
export type StepExpect = z.infer<typeof StepExpectSchema>;

/** When the step is done: a sentence a human reads, and optionally a predicate the loop checks. */
export const CompletionSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    text: Text(500),
    expect: z.optional(StepExpectSchema),
  }),
);

/**
 * One step of a plan. `tool` is the one tool the executor uses for it (a step without one is
 * answered in text); `critical: false` lets the loop skip the step when it fails.
 */
export const PlanStepSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    id: IdentifierSchema.clone().register(z.globalRegistry, {
      description: "Unique step id, e.g. 'read-notes'",
    }),
    action: Text(500).register(z.globalRegistry, { description: "What the executor does in this one step" }),
    tool: z.optional(IdentifierSchema).register(z.globalRegistry, {
      description: "The one tool the step uses; omit for a step answered in text",
    }),
    dependsOn: z
      ._default(z.array(IdentifierSchema).check(z.maxLength(MAX_PLAN_STEPS)), [])
      .register(z.globalRegistry, { description: "Ids of the steps whose results this step needs" }),
    expected: Text(500).register(z.globalRegistry, { description: "The result the step should produce" }),
    completion: CompletionSchema.clone().register(z.globalRegistry, {
      description:
        "When the step is done; expect.contains / expect.equals is checked against the tool's result",
    }),
    critical: z
      ._default(z.boolean(), true)
      .register(z.globalRegistry, { description: "false when the goal can do without this step" }),
    subgoal: z.optional(SubgoalRequestSchema).register(z.globalRegistry, {
      description:
        "A sub-goal this step is: its contract (objective, successChecks, pattern?, limits?, tools?, models?). The step's tool is spawn_subgoal; the step is done when the sub-goal completes",
    }),
  }),
);
export type PlanStep = z.infer<typeof PlanStepSchema>;
export type PlanStepInput = z.input<typeof PlanStepSchema>;

/** How many replans the record remembers; older ones live on in the event log. */
export const KEPT_REPLANS = 10;

export const PLAN_STEP_STATUSES = ["pending", "running", "done", "failed", "skipped"] as const;
export type PlanStepStatus = (typeof PLAN_STEP_STATUSES)[number];

/**
 * What Observe made of an executed step. `new_information` is not a tool result: the executor
 * called no tool and explained why the step cannot be done as planned.
 */
export const STEP_OUTCOMES = [
  "success",
  "below_expectation",
  "recoverable_failure",
  "unrecoverable_failure",
  "new_information",
] as const;
export type StepOutcome = (typeof STEP_OUTCOMES)[number];

/** From narrow to broad: a later request for the same plan may widen a pending one, never narrow it. */
export const REPLAN_STRATEGIES = ["skip", "repair", "replace_subplan", "global"] as const;
export type ReplanStrategy = (typeof REPLAN_STRATEGIES)[number];

export const REPLAN_TRIGGERS = [
  "failed_step",
  "below_expectation",
  "new_information",
  "human_revision",
  "plan_rejected",
  "decision_approved",
  "plan_exhausted",
  "invalid_plan",
] as const;
export type ReplanTrigger = (typeof REPLAN_TRIGGERS)[number];

const StepIdsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.array(z.string()).check(z.maxLength(MAX_PLAN_STEPS)),
);

/** A plan step with what the loop knows about it; `result` is a bounded excerpt for dependents' prompts. */
export const PlanStepStateSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(PlanStepSchema, {
    status: z.enum(PLAN_STEP_STATUSES),
    attempts: z.number().check(z.int(), z.gte(0)),
    lastResult: z.optional(z.enum(STEP_OUTCOMES)),
    result: z.optional(z.string().check(z.maxLength(600))),
  }),
);
export type PlanStepState = z.infer<typeof PlanStepStateSchema>;

/** A replan Observe (or an invalid plan) asked for and Plan has not made yet. */
export const ReplanRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    trigger: z.enum(REPLAN_TRIGGERS),
    strategy: z.enum(REPLAN_STRATEGIES),
    /** The steps the trigger is about (the failed step first). */
    stepIds: StepIdsSchema,
    reason: z.string().check(z.maxLength(2000)),
    /** Seconds to wait before the plan call: > 0 when the previous replan had no successful step since. */
    cooldownSeconds: z.number().check(z.int(), z.gte(0)),
    requestedAt: z.iso.datetime(),
  }),
);
export type ReplanRequest = z.infer<typeof ReplanRequestSchema>;

export const ReplanRecordSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** The plan version the replan made. */
    version: z.number().check(z.int(), z.gte(1)),
    trigger: z.enum(REPLAN_TRIGGERS),
    strategy: z.enum(REPLAN_STRATEGIES),
    stepIds: StepIdsSchema,
    at: z.iso.datetime(),
  }),
);
export type ReplanRecord = z.infer<typeof ReplanRecordSchema>;

/** An unrecoverable step failure a human decides on: approve → replan around it, reject → terminated. */
export const StepDecisionSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    stepId: z.string(),
    errorName: z.string().check(z.maxLength(200)),
    message: z.string().check(z.maxLength(1000)),
    outcome: z.enum(["pending", "approved"]),
    decidedBy: z.optional(z.string()),
    comment: z.optional(z.string().check(z.maxLength(2000))),
  }),
);
export type StepDecision = z.infer<typeof StepDecisionSchema>;

/** Where a batch turn is checkpointed: (goal, `runId`, `iteration`, execute, `ordinal`). */
export const BatchTurnKeySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    ordinal: z.number().check(z.int(), z.gte(1)),
  }),
);
export type BatchTurnKey = z.infer<typeof BatchTurnKeySchema>;

/** One step of a batch: its turn's checkpoint ordinal and call number, and whether its usage is counted. */
export const BatchStepSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    stepId: z.string(),
    /** 1 + the step's index in the plan: two turns of one batch never share a checkpoint key. */
    ordinal: z.number().check(z.int(), z.gte(1)),
    /** The goal's execute call number the turn is made as (fixtures, `requestMetadata.call`). */
    call: z.number().check(z.int(), z.gte(0)),
    /** The turn's usage is on the goal (the branch that made it, or the step that acted on it, counted it). */
    counted: z.boolean(),
    /** A call of the turn waits for a human: the batch's ungated steps act first. */
    gated: z.optional(z.boolean()),
  }),
);
export type BatchStep = z.infer<typeof BatchStepSchema>;

/**
 * Ready steps executed at once (the ExecuteBatch Map state): every branch makes one step's executor
 * turn, checkpointed under (goal, `runId`, `iteration`, execute, the step's ordinal), and counts its
 * usage; the loop then acts on each turn, one step per iteration, ungated steps first, and Observe
 * classifies each. A batch belongs to one plan `version`: a replan leaves its unused turns (paid and
 * counted) behind.
 */
export const PlanBatchSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    version: z.number().check(z.int(), z.gte(1)),
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    steps: z.array(BatchStepSchema).check(z.minLength(1), z.maxLength(MAX_PLAN_STEPS)),
  }),
);
export type PlanBatch = z.infer<typeof PlanBatchSchema>;

/**
 * The plan_execute loop's state on the goal record (one DynamoDB item, so every list is bounded).
 * Plan requests are numbered: Observe arms request `requests`, Plan serves it once (`served`), so a
 * retried Plan step never makes a second plan call for the same request.
 */
export const PlanStateSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** 0 until the first valid plan; each valid plan or revision adds one. */
    version: z.number().check(z.int(), z.gte(0)),
    /** The goal revision the plan has taken into account; a newer one is a replan trigger. */
    revisionSeen: z.number().check(z.int(), z.gte(1)),
    steps: z.array(PlanStepStateSchema).check(z.maxLength(MAX_PLAN_STEPS)),
    /**
     * The step the executor's turn of (run, iteration) works on, until Observe classifies it; `runId`
     * names the run's lineage (run-lineage.ts), so a run that takes the step over finds it.
     */
    current: z.optional(
      z.object({
        stepId: z.string(),
        runId: z.string(),
        iteration: z.number().check(z.int(), z.gte(0)),
        /** Where the step's executor turn is checkpointed when a batch made it (see PlanBatch). */
        turn: z.optional(BatchTurnKeySchema),
      }),
    ),
    /** The ready steps whose executor turns were made at once (ExecuteBatch); see PlanBatch. */
    batch: z.optional(PlanBatchSchema),
    pending: z.optional(ReplanRequestSchema),
    /** What was wrong with the last plan answer (zod issues), for the next plan prompt. */
    invalidIssues: z.optional(z.array(z.string().check(z.maxLength(300))).check(z.maxLength(10))),
    decision: z.optional(StepDecisionSchema),
    /** The plan waits for a human approval (`approval.requireFor` has "plan"; asked again after a global replan). */
    needsApproval: z.boolean(),
    requests: z.number().check(z.int(), z.gte(0)),
    served: z.number().check(z.int(), z.gte(0)),
    /** Since the last replan: when, and whether a step succeeded (no success → the next replan cools down). */
    sinceReplan: z.optional(z.object({ at: z.iso.datetime(), succeeded: z.boolean() })),
    history: z.array(ReplanRecordSchema).check(z.maxLength(KEPT_REPLANS)),
  }),
);
export type PlanState = z.infer<typeof PlanStateSchema>;

/** The step of the plan with id `stepId`, if any. */
export function stepById(state: Pick<PlanState, "steps">, stepId: string): PlanStepState | undefined {
  return state.steps.find((step) => step.id === stepId);
}

/** The record with `planState` replaced, stamped `now`. */
export function withPlanState<R extends { readonly updatedAt: string }>(
  record: R,
  planState: PlanState,
  now: Date,
): R {
  return { ...record, planState, updatedAt: now.toISOString() };
}
