import type { GoalRecord } from "../../goal/goal-record";
import type { SuccessCheck } from "../../goal/goal-spec";
import { remainingBudgetUsd } from "../../goal/limits";
import { markLoop, reached } from "../../goal/loop-marker";
import { checkpointRunId } from "../../goal/run-takeover";
import { gatedNext } from "../../loop/gates/action-gate";
import { isRunningIn, type RunPosition, type StepResult, stopped } from "../../loop/step-result";
import { chain, readGoal, updateGoal } from "../../loop/update-goal";
import { type JudgedFile, parseVerdict } from "../../loop/verify/judge";
import { type CapacityGovernor, capacityContextOf } from "../../models/capacity/capacity-governor";
import { checkpointedCall } from "../../models/model-call";
import { recordModelUsage } from "../../models/model-prices";
import { modelFor } from "../../models/model-thinking";
import type { Clock } from "../../ports/clock";
import type { GoalStore } from "../../ports/goal-store";
import type { ModelClient } from "../../ports/model-client";
import type { StepLog, StepRecord } from "../../ports/step-log";
import type { Workspace } from "../../ports/workspace";
import { lessonText, needsLesson, recordLesson } from "./record-lesson";
import { reflectRequest } from "./reflect-prompt";
import type { ReflexionSettings } from "./reflexion-deps";

export interface ReflectPorts {
  readonly goals: GoalStore;
  readonly workspace: Pick<Workspace, "readFile">;
  readonly stepLog: Pick<StepLog, "listRecentSteps">;
  readonly model: ModelClient;
  /** Paces its model calls within the models' quotas (see CheckpointedCallPorts). */
  readonly capacity?: CapacityGovernor;
  readonly now: Clock;
}

/**
 * Reflect: one `reflect` call (heavy tier) about the attempt that just failed — the goal, what the
 * attempt wrote and the checks still unsatisfied, with the evaluator's verdicts — whose answer is
 * stored on the goal as a lesson (`lesson.recorded`) for every later attempt. Answers `attempt`.
 *
 * A retry repeats nothing: the call is checkpointed under (run, iteration, reflect), and the lesson,
 * the usage and the `reflected` loop marker are committed together, once.
 */
export async function reflect(
  ports: ReflectPorts,
  settings: Pick<ReflexionSettings, "models">,
  input: RunPosition,
): Promise<StepResult> {
  const { runId } = input;
  const loaded = await readGoal(ports.goals, input.goalId);
  const { record } = loaded;
  if (!isRunningIn(record, runId)) return stopped(record, input);
  const iteration = record.runIteration;
  const position = { ...input, iteration };
  if (reached(record, runId, iteration, "reasoned"))
    return { ...position, next: gatedNext(record, position) };
  // Already reflected, or nothing to reflect on (no attempt yet, or its lesson is stored).
  if (reached(record, runId, iteration, "reflected") || !needsLesson(record)) {
    return { ...position, next: "attempt" };
  }

  const attempt = record.attempts ?? 0;
  const [step] = await ports.stepLog.listRecentSteps(record.goalId, 1);
  const key = {
    goalId: record.goalId,
    runId: checkpointRunId(record, position),
    iteration,
    role: "reflect" as const,
    ordinal: 0,
  };
  const files = step ? await attemptFiles(ports.workspace, record.goalId, step) : [];
  const verdicts = step ? await evaluatorVerdicts(ports.goals, record, step) : new Map<string, string>();
  const { turn } = await checkpointedCall(
    ports,
    key,
    (call) =>
      reflectRequest({
        record,
        attempt,
        step,
        files,
        verdicts,
        model: modelFor(record.spec, "reflect", settings.models),
        call,
      }),
    {
      budget: { remainingUsd: remainingBudgetUsd(record) },
      capacity: capacityContextOf(record),
      recordSchema: record.schema,
    },
  );
  const now = ports.now();
  const text = lessonText(turn, attempt);
  const counted = await updateGoal(ports.goals, loaded, (current) => {
    // Counted once per checkpoint, even when the goal stopped meanwhile: the call was paid for.
    if (current.runId !== runId || reached(current, runId, iteration, "reflected")) return undefined;
    return chain(
      current,
      (next) => recordModelUsage(next, "reflect", turn, now),
      (next) => recordLesson(next, { attempt, text }, now),
      (next) => markLoop(next, { runId, iteration, phase: "reflected" }, "attempt", now),
    );
  });
  if (!isRunningIn(counted.record, runId)) return stopped(counted.record, position);
  return { ...position, next: "attempt" };
}

/** The files the attempt wrote, latest version of each path (the step log keeps no content). */
async function attemptFiles(
  workspace: Pick<Workspace, "readFile">,
  goalId: string,
  step: StepRecord,
): Promise<JudgedFile[]> {
  const files: JudgedFile[] = [];
  for (const path of new Set(step.observations.artifacts.map((artifact) => artifact.path))) {
    const file = await workspace.readFile(goalId, path);
    if (file) files.push({ path, content: file.content });
  }
  return files;
}

const isJudged = (check: SuccessCheck) => check.verify.kind === "model_judge";

/**
 * What the evaluator said about each model_judge check of the attempt's step: its checkpoints under
 * the step's run and iteration, ordinal = the check's index among the model_judge checks.
 */
async function evaluatorVerdicts(
  goals: GoalStore,
  record: GoalRecord,
  step: StepRecord,
): Promise<Map<string, string>> {
  const verdicts = new Map<string, string>();
  for (const [ordinal, check] of record.spec.successChecks.filter(isJudged).entries()) {
    const checkpoint = await goals.getCheckpoint({
      goalId: record.goalId,
      runId: checkpointRunId(record, step),
      iteration: step.iteration,
      role: "evaluate",
      ordinal,
    });
    if (checkpoint) verdicts.set(check.id, parseVerdict(checkpoint.turn).text);
  }
  return verdicts;
}
