import { createHash } from "node:crypto";
import { ModelRoleSchema } from "../models/model-roles";
import * as z from "../zod";
import { goalIdFromBytes } from "./goal-ids";
import {
  GoalSpecSchema,
  HintsSchema,
  ModelOverridesSchema,
  OptionalLimitsSchema,
  RequestedPatternSchema,
  refuseDuplicateCheckIds,
} from "./goal-spec";
import { UsageSchema } from "./usage";

/**
 * Sub-goals (DESIGN §1, §6): a goal started by a parent goal through `spawn_subgoal` (or a plan step
 * with `subgoal`), with its own contract and run. Shapes only: what a spawn asks for, what the
 * parent's record keeps about each child, and the wait that parks the parent until its children
 * end. Starting children and waking the parent live in loop/subgoals/.
 */

/** The built-in tool that starts a sub-goal and waits for it. */
export const SPAWN_SUBGOAL_TOOL = "spawn_subgoal";

/** Configuration `subgoals.maxDepth`'s default: children, grandchildren and their children. */
export const DEFAULT_SUBGOAL_MAX_DEPTH = 3;
/** Configuration `subgoals.maxChildren`'s default: how many sub-goals one goal may start. */
export const DEFAULT_SUBGOAL_MAX_CHILDREN = 10;

// A function, not a constant: reading the shape at import would build GoalSpecSchema in every cold start.
const spec = () => GoalSpecSchema.shape;

/**
 * The limits a spawn may ask for, each optional: what it leaves out is carved from the parent's
 * remaining budget (cost, steps, deadline) or takes the GoalSpec default (the rest).
 */
export const SubgoalLimitsSchema = OptionalLimitsSchema;

/**
 * What `spawn_subgoal` takes (and a plan step's `subgoal`): the child's contract. `tools` must be a
 * subset of the parent's (default: all of them), `models` only from the allow-list (default: the
 * parent's), `limits` within what the parent has left. Its approval policy is the parent's.
 */
export const SubgoalRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      objective: spec().objective.clone().register(z.globalRegistry, {
        description: "What the sub-goal must achieve, in one or two sentences",
      }),
      successChecks: z
        .array(spec().successChecks.def.element)
        .check(
          z.minLength(1, "must list at least one success check"),
          z.maxLength(20, "must list at most 20 success checks"),
        )
        .register(z.globalRegistry, {
          description: "How the sub-goal proves it is done: the same success checks a GoalSpec takes",
        }),
      scope: spec().scope,
      constraints: spec().constraints,
      hints: z.optional(HintsSchema),
      pattern: z.optional(RequestedPatternSchema).register(z.globalRegistry, {
        description: "react, plan_execute, reflexion or auto (the default: the selector's rules pick)",
      }),
      limits: z.optional(SubgoalLimitsSchema).register(z.globalRegistry, {
        description:
          "At most what the parent has left; by default a share of the parent's remaining cost and steps, and its deadline",
      }),
      tools: spec()
        .tools.clone()
        .register(z.globalRegistry, { description: "A subset of the parent's tools; default: all of them" }),
      models: z
        .optional(ModelOverridesSchema)
        .register(z.globalRegistry, { description: "Models from the allow-list; default: the parent's" }),
      priority: spec().priority.clone().register(z.globalRegistry, {
        description:
          "high, normal or low: how its model calls queue when a model's quota is short; default: the parent's",
      }),
    })
    .check(z.superRefine(refuseDuplicateCheckIds)),
);
export type SubgoalRequest = z.infer<typeof SubgoalRequestSchema>;
export type SubgoalRequestInput = z.input<typeof SubgoalRequestSchema>;

/** Statuses a child ends in: after one of these its outcome is the parent's tool result. */
export const SUBGOAL_END_STATUSES = ["completed", "cancelled", "terminated"] as const;

/**
 * What the parent's record keeps about one `spawn_subgoal` call: the child it started (`running`
 * until the child ends, then the child's final status and usage, which the parent's usage includes
 * from then on), or why the call was refused (a tool error the model gets, nothing started).
 */
export const SubgoalEntrySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** `toolCallIdempotencyKey` of the call: goal, the turn's run and iteration, toolUseId. */
    callKey: z.string(),
    toolUseId: z.string(),
    /** The run and iteration whose turn made the call (its checkpoint's). */
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    status: z.enum(["running", ...SUBGOAL_END_STATUSES, "refused"]),
    /** The child's goal id (absent for a refused call). */
    goalId: z.optional(z.string()),
    objective: z.string().check(z.maxLength(300)),
    pattern: z.optional(z.string()),
    /** What the child may spend: reserved from the parent's budget while it runs. */
    reserved: z.optional(
      z.object({ maxCostUsd: z.number().check(z.gte(0)), maxSteps: z.number().check(z.int(), z.gte(0)) }),
    ),
    /** The child's usage once it ended: already added to the parent's. */
    usage: z.optional(UsageSchema),
    /** The same per model role (added to the parent's usage by role). */
    usageByRole: z.optional(z.partialRecord(ModelRoleSchema, UsageSchema)),
    refusal: z.optional(z.object({ name: z.string(), message: z.string().check(z.maxLength(2000)) })),
    startedAt: z.iso.datetime(),
    endedAt: z.optional(z.iso.datetime()),
  }),
);
export type SubgoalEntry = z.infer<typeof SubgoalEntrySchema>;

/**
 * The parent parked on a task token until every child its turn started has ended (the way it waits
 * for a human). The token never leaves the goal item: no event, snapshot or log carries it.
 */
export const SubgoalWaitSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** Stands where an approval id stands in `waitingFor` and `resumeCondition`. */
    waitId: z.string(),
    /** The run and iteration of the turn whose calls started the children. */
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    taskToken: z.string().check(z.maxLength(2048)),
    since: z.iso.datetime(),
  }),
);
export type SubgoalWait = z.infer<typeof SubgoalWaitSchema>;

/** Whether an entry's child has ended (or the call was refused): nothing is left to wait for. */
export function isSettledEntry(entry: Pick<SubgoalEntry, "status">): boolean {
  return entry.status !== "running";
}

/** The entries of the children still running. */
export function runningSubgoals(record: { readonly subgoals?: readonly SubgoalEntry[] }): SubgoalEntry[] {
  return (record.subgoals ?? []).filter((entry) => entry.status === "running");
}

/** Entries that started a child (running or ended), refusals left out: what counts toward the bound. */
export function startedSubgoals(record: { readonly subgoals?: readonly SubgoalEntry[] }): SubgoalEntry[] {
  return (record.subgoals ?? []).filter((entry) => entry.goalId !== undefined);
}

/**
 * The child's goal id: derived from the parent and the call, never random, so a retried or redriven
 * step that starts it again finds the same goal (and the same execution name).
 */
export function childGoalId(parentGoalId: string, callKey: string): string {
  const digest = createHash("sha256")
    .update(`goal-loops/subgoal/v1\u0000${parentGoalId}\u0000${callKey}`, "utf8")
    .digest();
  return goalIdFromBytes(digest.subarray(0, 16));
}

/** The id a parent's wait on the children of one turn goes by (in place of an approval id). */
export function subgoalWaitId(goalId: string, turn: { runId: string; iteration: number }): string {
  const digest = createHash("sha256")
    .update(`goal-loops/subgoal-wait/v1\u0000${goalId}\u0000${turn.runId}\u0000${turn.iteration}`, "utf8")
    .digest("hex");
  return `sw-${digest.slice(0, 24)}`;
}
