import type { GoalRecord } from "../goal/goal-record";
import { toolUsesOf } from "../models/model-answer";
import { type ModelRole, ModelRoleSchema } from "../models/model-roles";
import type { GoalHistory, StepState } from "../ports/goal-history";
import type { GoalStore, ModelCheckpoint } from "../ports/goal-store";
import type { StepRecord } from "../ports/step-log";
import * as z from "../zod";
import { badStep, stepStateOf } from "./fork-point";
import {
  type CheckpointIndex,
  indexCheckpoints,
  matchTurn,
  ownUsageByRole,
  workspaceSha256,
} from "./step-turns";

export interface ReplayPorts {
  readonly goals: Pick<GoalStore, "getGoal">;
  readonly history: Pick<GoalHistory, "getStepState" | "listSteps" | "listCheckpoints">;
}

/** Where the record and the checkpoints first disagree: the step, what disagrees, and how. */
export const DisagreementSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    step: z.number().check(z.int(), z.gte(1)),
    /** `step` (missing from the log), `turn`, `toolResults`, `state`, `usage` or `workspace`. */
    field: z.enum(["step", "turn", "toolResults", "state", "usage", "workspace"]),
    message: z.string(),
  }),
);
export type Disagreement = z.infer<typeof DisagreementSchema>;

/** One replayed step: the checkpointed turn it acted on and what it rebuilt. */
export const ReplayedStepSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    step: z.number().check(z.int(), z.gte(1)),
    agrees: z.boolean(),
    turn: z.optional(
      z.object({
        role: ModelRoleSchema,
        call: z.number().check(z.int()),
        runId: z.string(),
        iteration: z.number().check(z.int()),
      }),
    ),
    /** The workspace after the step as its recorded state lists it, as one hash (see `workspaceSha256`). */
    workspaceSha256: z.optional(z.string()),
    /** The goal's own model calls counted after the step, when a state was recorded. */
    modelCalls: z.optional(z.number().check(z.int())),
  }),
);
export type ReplayedStep = z.infer<typeof ReplayedStepSchema>;

/** `POST /goals/{goalId}/replay`: the answer. */
export const ReplayResultSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    toStep: z.number().check(z.int(), z.gte(0)),
    agrees: z.boolean(),
    firstDisagreement: z.optional(DisagreementSchema),
    steps: z.array(ReplayedStepSchema),
  }),
);
export type ReplayResult = z.infer<typeof ReplayResultSchema>;

/**
 * Replays a goal's steps 1 to `toStep` from what was recorded alone: no model is called and no tool
 * runs. Each step's turn is taken from its checkpoint and must be byte for byte the turn the step
 * log holds, with a result for each of its tool calls; the calls checkpointed by the step's
 * recorded state must add up to the usage that state counts, role by role; and the files the step
 * log says were written, latest write per path, must be the files that state lists. Names the first
 * step where the record and the checkpoints disagree, and stops there.
 */
export async function replayGoal(
  ports: ReplayPorts,
  goal: GoalRecord,
  toStep: number = goal.steps,
): Promise<ReplayResult> {
  if (toStep > goal.steps) {
    throw badStep(
      "toStep",
      `step ${toStep} does not exist: goal ${goal.goalId} has counted ${goal.steps} steps`,
    );
  }
  const [steps, checkpoints] = await Promise.all([
    ports.history.listSteps(goal.goalId, { from: 1, to: toStep }),
    ports.history.listCheckpoints(goal.goalId),
  ]);
  const index = indexCheckpoints(checkpoints);
  const logged = new Map(steps.map((step) => [step.step, step]));
  const files = new Map<string, string>();
  const replayed: ReplayedStep[] = [];
  for (let number = 1; number <= toStep; number += 1) {
    const step = logged.get(number);
    if (step === undefined) {
      return result(goal, toStep, replayed, {
        step: number,
        field: "step",
        message: `step ${number} is missing from the step log`,
      });
    }
    for (const artifact of step.observations.artifacts) files.set(artifact.path, artifact.sha256);
    const state = await recordedState(ports, goal, number);
    const checked = checkStep(goal, index, step, state, checkpoints, files);
    replayed.push(checked.replayed);
    if (checked.disagreement) return result(goal, toStep, replayed, checked.disagreement);
  }
  return result(goal, toStep, replayed);
}

function result(
  goal: GoalRecord,
  toStep: number,
  steps: readonly ReplayedStep[],
  firstDisagreement?: Disagreement,
): ReplayResult {
  return {
    goalId: goal.goalId,
    toStep,
    agrees: firstDisagreement === undefined,
    ...(firstDisagreement === undefined ? {} : { firstDisagreement }),
    steps: [...steps],
  };
}

/** The step's recorded state, or undefined for a step counted before states were recorded. */
async function recordedState(
  ports: ReplayPorts,
  goal: GoalRecord,
  step: number,
): Promise<StepState | undefined> {
  try {
    return (await stepStateOf(ports, goal, step, "toStep")).state;
  } catch {
    // No state to compare with: the turn and its tool results are still checked.
    return undefined;
  }
}

function checkStep(
  goal: GoalRecord,
  index: CheckpointIndex,
  step: StepRecord,
  state: StepState | undefined,
  checkpoints: readonly ModelCheckpoint[],
  files: ReadonlyMap<string, string>,
): { replayed: ReplayedStep; disagreement?: Disagreement } {
  const number = step.step;
  const match = matchTurn(index, goal.pattern, goal.goalId, step);
  const turn =
    match.kind === "missing"
      ? undefined
      : {
          role: match.checkpoint.key.role,
          call: match.checkpoint.call,
          runId: match.checkpoint.key.runId,
          iteration: match.checkpoint.key.iteration,
        };
  const replayed: ReplayedStep = {
    step: number,
    agrees: false,
    ...(turn === undefined ? {} : { turn }),
    ...(state === undefined
      ? {}
      : {
          workspaceSha256: workspaceSha256(state.workspace),
          modelCalls: Object.values(ownUsageByRole(state.record)).reduce(
            (sum, usage) => sum + (usage?.modelCalls ?? 0),
            0,
          ),
        }),
  };
  const disagree = (field: Disagreement["field"], message: string) => ({
    replayed,
    disagreement: { step: number, field, message },
  });
  if (match.kind === "differs") {
    const { role, runId, iteration } = match.checkpoint.key;
    return disagree(
      "turn",
      `step ${number}'s turn is not the ${role} turn checkpointed for run ${runId} iteration ${iteration} (call ${match.checkpoint.call})`,
    );
  }
  if (match.kind === "missing") {
    return disagree(
      "turn",
      `no checkpoint holds step ${number}'s turn (run ${step.runId} iteration ${step.iteration})`,
    );
  }
  const unanswered = toolUsesOf(step.turn).filter(
    (call) => !step.toolResults.some((result) => result.toolUseId === call.toolUseId),
  );
  if (unanswered.length > 0 || step.toolResults.length !== toolUsesOf(step.turn).length) {
    return disagree("toolResults", `step ${number}'s tool results do not answer its tool calls one for one`);
  }
  if (state === undefined) return { replayed: { ...replayed, agrees: true } };
  if (state.record.steps !== number) {
    return disagree("state", `the state recorded after step ${number} counts ${state.record.steps} steps`);
  }
  const usage = usageProblem(state, checkpoints);
  if (usage) return disagree("usage", `after step ${number}: ${usage}`);
  const workspace = workspaceProblem(state, files);
  if (workspace) return disagree("workspace", `after step ${number}: ${workspace}`);
  return { replayed: { ...replayed, agrees: true } };
}

/**
 * The calls a state says were checkpointed, role by role, against the usage it counts for the role:
 * their number and their tokens must be the same (a sub-goal's usage is left out, it is its own).
 */
function usageProblem(state: StepState, checkpoints: readonly ModelCheckpoint[]): string | undefined {
  const own = ownUsageByRole(state.record);
  const roles = new Set([...Object.keys(own), ...Object.keys(state.calls)] as ModelRole[]);
  for (const role of roles) {
    const calls = state.calls[role] ?? 0;
    const made = checkpoints.filter((checkpoint) => checkpoint.key.role === role && checkpoint.call < calls);
    const counted = own[role];
    const tokensIn = made.reduce((sum, checkpoint) => sum + checkpoint.turn.usage.inputTokens, 0);
    const tokensOut = made.reduce((sum, checkpoint) => sum + checkpoint.turn.usage.outputTokens, 0);
    const same =
      made.length === (counted?.modelCalls ?? 0) &&
      tokensIn === (counted?.inputTokens ?? 0) &&
      tokensOut === (counted?.outputTokens ?? 0);
    if (!same) {
      return `the record counts ${counted?.modelCalls ?? 0} ${role} calls (${counted?.inputTokens ?? 0} tokens in, ${counted?.outputTokens ?? 0} out); the checkpoints hold ${made.length} (${tokensIn} in, ${tokensOut} out)`;
    }
  }
  return undefined;
}

/**
 * The files the step log's writes leave (latest write per path) against the state's workspace. A
 * goal whose files a compensation saga changed is not compared: the saga writes outside the log.
 */
function workspaceProblem(state: StepState, files: ReadonlyMap<string, string>): string | undefined {
  const { record } = state;
  if (record.saga !== undefined || (record.compensatedSteps?.length ?? 0) > 0) return undefined;
  const listed = new Map(state.workspace.map((entry) => [entry.path, entry.sha256]));
  for (const [path, sha256] of files) {
    const held = listed.get(path);
    if (held !== sha256) {
      return held === undefined
        ? `the step log wrote '${path}', which the workspace did not hold`
        : `the step log's last write of '${path}' hashes ${sha256.slice(0, 12)}…, the workspace held ${held.slice(0, 12)}…`;
    }
  }
  return undefined;
}
