import * as z from "zod";
import type { GoalRecord } from "../goal-record";
import { MAX_PLAN_STEPS, type PlanStep, PlanStepSchema } from "./plan-schema";

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

const StepIdsSchema = z.array(z.string()).max(MAX_PLAN_STEPS);

/** A plan step with what the loop knows about it; `result` is a bounded excerpt for dependents' prompts. */
export const PlanStepStateSchema = PlanStepSchema.extend({
  status: z.enum(PLAN_STEP_STATUSES),
  attempts: z.number().int().min(0),
  lastResult: z.enum(STEP_OUTCOMES).optional(),
  result: z.string().max(600).optional(),
});
export type PlanStepState = z.infer<typeof PlanStepStateSchema>;

/** A replan Observe (or an invalid plan) asked for and Plan has not made yet. */
export const ReplanRequestSchema = z.object({
  trigger: z.enum(REPLAN_TRIGGERS),
  strategy: z.enum(REPLAN_STRATEGIES),
  /** The steps the trigger is about (the failed step first). */
  stepIds: StepIdsSchema,
  reason: z.string().max(2000),
  /** Seconds to wait before the plan call: > 0 when the previous replan had no successful step since. */
  cooldownSeconds: z.number().int().min(0),
  requestedAt: z.iso.datetime(),
});
export type ReplanRequest = z.infer<typeof ReplanRequestSchema>;

export const ReplanRecordSchema = z.object({
  /** The plan version the replan made. */
  version: z.number().int().min(1),
  trigger: z.enum(REPLAN_TRIGGERS),
  strategy: z.enum(REPLAN_STRATEGIES),
  stepIds: StepIdsSchema,
  at: z.iso.datetime(),
});
export type ReplanRecord = z.infer<typeof ReplanRecordSchema>;

/** An unrecoverable step failure a human decides on: approve → replan around it, reject → terminated. */
export const StepDecisionSchema = z.object({
  stepId: z.string(),
  errorName: z.string().max(200),
  message: z.string().max(1000),
  outcome: z.enum(["pending", "approved"]),
  decidedBy: z.string().optional(),
  comment: z.string().max(2000).optional(),
});
export type StepDecision = z.infer<typeof StepDecisionSchema>;

/**
 * The plan_execute loop's state on the goal record (one DynamoDB item, so every list is bounded).
 * Plan requests are numbered: Observe arms request `requests`, Plan serves it once (`served`), so a
 * retried Plan step never makes a second plan call for the same request.
 */
export const PlanStateSchema = z.object({
  /** 0 until the first valid plan; each valid plan or revision adds one. */
  version: z.number().int().min(0),
  /** The goal revision the plan has taken into account; a newer one is a replan trigger. */
  revisionSeen: z.number().int().min(1),
  steps: z.array(PlanStepStateSchema).max(MAX_PLAN_STEPS),
  /** The step the executor's turn of (run, iteration) works on, until Observe classifies it. */
  current: z.object({ stepId: z.string(), runId: z.string(), iteration: z.number().int().min(0) }).optional(),
  pending: ReplanRequestSchema.optional(),
  /** What was wrong with the last plan answer (zod issues), for the next plan prompt. */
  invalidIssues: z.array(z.string().max(300)).max(10).optional(),
  decision: StepDecisionSchema.optional(),
  /** The plan waits for a human approval (`approval.requireFor` has "plan"; asked again after a global replan). */
  needsApproval: z.boolean(),
  requests: z.number().int().min(0),
  served: z.number().int().min(0),
  /** Since the last replan: when, and whether a step succeeded (no success → the next replan cools down). */
  sinceReplan: z.object({ at: z.iso.datetime(), succeeded: z.boolean() }).optional(),
  history: z.array(ReplanRecordSchema).max(KEPT_REPLANS),
});
export type PlanState = z.infer<typeof PlanStateSchema>;

/** Statuses a dependent may build on: a skipped step's dependents go on without it. */
const SETTLED: ReadonlySet<PlanStepStatus> = new Set(["done", "skipped"]);

/** The first pending step whose dependencies are all done (or skipped), in plan order. */
export function readyStep(state: Pick<PlanState, "steps">): PlanStepState | undefined {
  const status = new Map(state.steps.map((step) => [step.id, step.status]));
  return state.steps.find(
    (step) =>
      step.status === "pending" &&
      step.dependsOn.every((dep) => {
        const depStatus = status.get(dep);
        return depStatus !== undefined && SETTLED.has(depStatus);
      }),
  );
}

export function stepById(state: Pick<PlanState, "steps">, stepId: string): PlanStepState | undefined {
  return state.steps.find((step) => step.id === stepId);
}

/** `stepId` and every step that depends on it, directly or not, in plan order. */
export function withDependents(steps: readonly PlanStep[], stepId: string): string[] {
  const affected = new Set([stepId]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const step of steps) {
      if (!affected.has(step.id) && step.dependsOn.some((dep) => affected.has(dep))) {
        affected.add(step.id);
        grew = true;
      }
    }
  }
  return steps.filter((step) => affected.has(step.id)).map((step) => step.id);
}

/** Replaces one step by id (the plan's order is kept). */
export function updateStep(
  state: PlanState,
  stepId: string,
  update: (step: PlanStepState) => PlanStepState,
): PlanState {
  return { ...state, steps: state.steps.map((step) => (step.id === stepId ? update(step) : step)) };
}

/** The state before the first plan: request 1 armed, nothing planned yet. */
export function initialPlanState(revision: number): PlanState {
  return {
    version: 0,
    revisionSeen: revision,
    steps: [],
    needsApproval: false,
    requests: 1,
    served: 0,
    history: [],
  };
}

/** A fresh step from the planner's answer. */
export function newStepState(step: PlanStep): PlanStepState {
  return { ...step, status: "pending", attempts: 0 };
}

/** The record with `planState` replaced, stamped `now`. */
export function withPlanState(record: GoalRecord, planState: PlanState, now: Date): GoalRecord {
  return { ...record, planState, updatedAt: now.toISOString() };
}
