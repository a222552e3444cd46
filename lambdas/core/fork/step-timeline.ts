import { ForkedFromSchema } from "../goal/fork";
import type { GoalEvent } from "../goal/goal-event";
import type { GoalRecord } from "../goal/goal-record";
import { clip } from "../goal/text";
import { toolUsesOf, turnText } from "../models/model-answer";
import { ModelRoleSchema } from "../models/model-roles";
import type { GoalHistory, StepState } from "../ports/goal-history";
import type { GoalStore } from "../ports/goal-store";
import type { StepRecord } from "../ports/step-log";
import * as z from "../zod";
import { type ForkPoint, stepStateOf, unfinishedBatchSteps } from "./fork-point";
import { indexCheckpoints, matchTurn, usageBetween, workspaceSha256 } from "./step-turns";

/** One step of `GET /goals/{goalId}/steps`: what it did, what it cost, its checkpoint, whether a fork can start after it. */
export const TimelineStepSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    step: z.number().check(z.int(), z.gte(1)),
    /** What the pattern calls a step: a ReAct iteration, a plan step, a Reflexion attempt. */
    kind: z.enum(["iteration", "plan_step", "attempt"]),
    /** `iteration 3`, `plan step notify-ops`, `attempt 2`. */
    label: z.string(),
    at: z.string(),
    /** What the step did: the turn's text (bounded) and each tool call with its result's status. */
    did: z.object({
      text: z.string(),
      toolCalls: z.array(z.object({ name: z.string(), status: z.enum(["success", "error"]) })),
    }),
    /** Model calls and cost since the step before it (the acting call, judges, planning, reflection). */
    cost: z.optional(z.object({ usd: z.number(), modelCalls: z.number().check(z.int()) })),
    /** The checkpointed turn the step acted on. */
    checkpoint: z.optional(
      z.object({
        role: ModelRoleSchema,
        call: z.number().check(z.int()),
        runId: z.string(),
        iteration: z.number().check(z.int()),
      }),
    ),
    /** A step this fork shares with the goal it was forked from (made there, not paid again here). */
    inherited: z.boolean(),
    /** The workspace right after the step: how many files, and one hash over paths and contents. */
    workspace: z.optional(z.object({ files: z.number().check(z.int()), sha256: z.string() })),
    /** Whether `POST /goals/{goalId}/fork {atStep}` can start after this step, and why not. */
    forkable: z.boolean(),
    whyNotForkable: z.optional(z.string()),
  }),
);
export type TimelineStep = z.infer<typeof TimelineStepSchema>;

/** An approval the goal was asked, for a fork's `decisions`: which step it came after and how it was decided. */
export const TimelineApprovalSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    approvalId: z.string(),
    kind: z.string(),
    summary: z.string(),
    requestedAt: z.string(),
    /** The last step counted before it was asked: a fork at this step or earlier may decide it otherwise. */
    afterStep: z.number().check(z.int(), z.gte(0)),
    decision: z.optional(z.enum(["approve", "reject"])),
    decidedBy: z.optional(z.string()),
  }),
);
export type TimelineApproval = z.infer<typeof TimelineApprovalSchema>;

/** `GET /goals/{goalId}/steps`: the answer. */
export const TimelineSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    /** The goal and step this goal was forked from, for a fork: its steps up to that one are shared. */
    forkedFrom: z.optional(ForkedFromSchema),
    items: z.array(TimelineStepSchema),
    /** Pass as `after` for the next page; absent on the last. */
    nextAfter: z.optional(z.number().check(z.int())),
    approvals: z.array(TimelineApprovalSchema),
  }),
);
export type Timeline = z.infer<typeof TimelineSchema>;

export interface TimelinePorts {
  readonly goals: Pick<GoalStore, "getGoal">;
  readonly history: Pick<GoalHistory, "getStepState" | "listSteps" | "listCheckpoints">;
}

/** The counted steps after `after`, at most `limit`, with the goal's approvals (from `events`). */
export async function stepTimeline(
  ports: TimelinePorts,
  goal: GoalRecord,
  page: { readonly after: number; readonly limit: number },
  events: readonly GoalEvent[],
): Promise<Timeline> {
  const from = page.after + 1;
  const to = Math.min(goal.steps, page.after + page.limit);
  const [steps, checkpoints] = await Promise.all([
    ports.history.listSteps(goal.goalId, { from, to }),
    ports.history.listCheckpoints(goal.goalId),
  ]);
  const index = indexCheckpoints(checkpoints);
  const points = new Map<number, ForkPoint | string>();
  for (let step = Math.max(1, from - 1); step <= to; step += 1)
    points.set(step, await pointOf(ports, goal, step));
  const stateOf = (step: number) => {
    const point = points.get(step);
    return typeof point === "object" ? point.state : undefined;
  };
  const items = steps.map((step) => {
    const point = points.get(step.step);
    const match = matchTurn(index, goal.pattern, goal.goalId, step);
    return timelineStep(
      goal,
      step,
      typeof point === "object" ? point : (point ?? "no state"),
      stateOf(step.step - 1),
      match.kind === "missing" ? undefined : match.checkpoint,
    );
  });
  return {
    goalId: goal.goalId,
    ...(goal.spec.forkedFrom === undefined ? {} : { forkedFrom: goal.spec.forkedFrom }),
    items,
    ...(to < goal.steps ? { nextAfter: to } : {}),
    approvals: approvalsOf(events, goal.spec.forkedFrom?.step ?? 0),
  };
}

/** The step's fork point, or why a fork cannot start after it. */
async function pointOf(ports: TimelinePorts, goal: GoalRecord, step: number): Promise<ForkPoint | string> {
  try {
    const point = await stepStateOf(ports, goal, step);
    const left = unfinishedBatchSteps(point.state.record);
    return left.length === 0
      ? point
      : `inside a batch of plan steps that did not finish (${left.join(", ")})`;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^Invalid atStep: /, "") : String(error);
  }
}

function timelineStep(
  goal: GoalRecord,
  step: StepRecord,
  point: ForkPoint | string,
  previous: StepState | undefined,
  checkpoint:
    | { key: { role: z.infer<typeof ModelRoleSchema>; runId: string; iteration: number }; call: number }
    | undefined,
): TimelineStep {
  const state = typeof point === "object" ? point.state : undefined;
  const calls = toolUsesOf(step.turn);
  const { kind, label } = labelOf(goal, step.step, state);
  return {
    step: step.step,
    kind,
    label,
    at: step.at,
    did: {
      text: clip(turnText(step.turn, " ").trim(), 300),
      toolCalls: calls.map((call) => ({
        name: call.name,
        status: step.toolResults.find((result) => result.toolUseId === call.toolUseId)?.status ?? "error",
      })),
    },
    ...(state === undefined
      ? {}
      : {
          cost: {
            usd: usageBetween(previous, state).costUsd,
            modelCalls: usageBetween(previous, state).modelCalls,
          },
        }),
    ...(checkpoint === undefined
      ? {}
      : {
          checkpoint: {
            role: checkpoint.key.role,
            call: checkpoint.call,
            runId: checkpoint.key.runId,
            iteration: checkpoint.key.iteration,
          },
        }),
    inherited: goal.spec.forkedFrom !== undefined && step.step <= goal.spec.forkedFrom.step,
    ...(state === undefined
      ? {}
      : { workspace: { files: state.workspace.length, sha256: workspaceSha256(state.workspace) } }),
    forkable: typeof point === "object",
    ...(typeof point === "object" ? {} : { whyNotForkable: point }),
  };
}

function labelOf(
  goal: GoalRecord,
  step: number,
  state: StepState | undefined,
): Pick<TimelineStep, "kind" | "label"> {
  switch (goal.pattern) {
    case "react":
      return { kind: "iteration", label: `iteration ${step}` };
    case "plan_execute":
      return {
        kind: "plan_step",
        label: state?.planStepId ? `plan step ${state.planStepId}` : `plan step (step ${step})`,
      };
    case "reflexion":
      return { kind: "attempt", label: `attempt ${step}` };
  }
}

/**
 * The goal's approvals as its events tell them (`approval.requested`, `approval.decided`), each with
 * the last step counted before it was asked: every counted step records one `progress` or
 * `no_progress` event, so the count of those before it (after the step a fork started at) says.
 */
function approvalsOf(events: readonly GoalEvent[], startedAt: number): TimelineApproval[] {
  const asked = new Map<string, TimelineApproval>();
  let counted = startedAt;
  for (const event of events) {
    if (event.type === "progress" || event.type === "no_progress") counted += 1;
    const approvalId = typeof event.approvalId === "string" ? event.approvalId : undefined;
    if (approvalId === undefined) continue;
    if (event.type === "approval.requested") {
      asked.set(approvalId, {
        approvalId,
        kind: typeof event.kind === "string" ? event.kind : "unknown",
        summary: typeof event.summary === "string" ? event.summary : "",
        requestedAt: event.at,
        afterStep: counted,
      });
    }
    const known = asked.get(approvalId);
    if (
      event.type === "approval.decided" &&
      known &&
      (event.decision === "approve" || event.decision === "reject")
    ) {
      asked.set(approvalId, {
        ...known,
        decision: event.decision,
        ...(typeof event.decidedBy === "string" ? { decidedBy: event.decidedBy } : {}),
      });
    }
  }
  return [...asked.values()];
}
