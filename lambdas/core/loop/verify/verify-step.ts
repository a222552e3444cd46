import { evidenceFor, unsatisfiedCheckIds } from "../../goal/evidence/check-evidence";
import type { ArtifactObservation, CycleObservationsInput } from "../../goal/evidence/cycle-observations";
import { cycleFingerprints, recordCycle } from "../../goal/evidence/record-cycle";
import { recordJudgement } from "../../goal/evidence/record-judgement";
import type { GoalChange } from "../../goal/goal-change";
import { complete } from "../../goal/goal-lifecycle";
import type { GoalRecord } from "../../goal/goal-record";
import type { SuccessCheck } from "../../goal/goal-spec";
import { remainingBudgetUsd } from "../../goal/limits";
import { contractSince } from "../../goal/revisions";
import { checkpointRunId } from "../../goal/run-takeover";
import { clip } from "../../goal/text";
import { capacityContextOf } from "../../models/capacity/capacity-governor";
import { toolUsesOf } from "../../models/model-answer";
import { checkpointedCall } from "../../models/model-call";
import { costOf, recordModelUsage } from "../../models/model-prices";
import { modelFor } from "../../models/model-thinking";
import type { ModelTiers } from "../../models/model-tiers";
import type { Clock } from "../../ports/clock";
import type { GoalStore, ModelCheckpoint } from "../../ports/goal-store";
import type { ModelClient } from "../../ports/model-client";
import type { StepRecord } from "../../ports/step-log";
import type { Workspace } from "../../ports/workspace";
import { chain } from "../update-goal";
import {
  type JudgedFile,
  type JudgeRole,
  judgeEvidenceText,
  judgeRequest,
  parseVerdict,
  type Verdict,
} from "./judge";

export interface VerifyPorts {
  readonly goals: GoalStore;
  readonly workspace: Pick<Workspace, "readFile">;
  readonly model: ModelClient;
  readonly now: Clock;
}

/** A judge call's checkpoint and what it said about one model_judge check. */
export interface Judgement {
  readonly checkId: string;
  readonly checkpoint: ModelCheckpoint;
  readonly verdict: Verdict;
}

/** The files a step wrote, read back once (latest version per path) where a check or a judge needs them. */
async function readStepFiles(
  workspace: Pick<Workspace, "readFile">,
  record: GoalRecord,
  artifacts: readonly ArtifactObservation[],
): Promise<Map<string, { sha256: string; content: string }>> {
  const files = new Map<string, { sha256: string; content: string }>();
  for (const path of new Set(artifacts.map((artifact) => artifact.path))) {
    if (!needsContent(record, path)) continue;
    const file = await workspace.readFile(record.goalId, path);
    if (file) files.set(path, { sha256: file.sha256, content: file.content });
  }
  return files;
}

/**
 * Whether a check needs the content of the file at `path`: a judge sees every file the step wrote;
 * an artifact check with `contains` only its own path. Other files are never read back.
 */
function needsContent(record: GoalRecord, path: string): boolean {
  return record.spec.successChecks.some(
    (check) =>
      check.verify.kind === "model_judge" ||
      (check.verify.kind === "artifact" && check.verify.contains !== undefined && check.verify.path === path),
  );
}

/** Whether the tool calls of the step's turn say the model stopped acting: a claim that it is done. */
function claimsDone(step: StepRecord): boolean {
  return step.turn.stopReason === "end_turn" && toolUsesOf(step.turn).length === 0;
}

/** One line for the progress notes: what the step did, in the loop's words (never the model's). */
function stepNote(step: StepRecord): string {
  const calls = toolUsesOf(step.turn).map((call) => call.name);
  if (calls.length === 0) return `step ${step.step}: no tool calls (${step.turn.stopReason})`;
  const errors = step.toolResults.filter((result) => result.status === "error").length;
  const note = `step ${step.step}: ${calls.join(", ")}${errors > 0 ? ` (${errors} failed)` : ""}`;
  return clip(note, 300);
}

export interface StepEvidence {
  readonly observations: CycleObservationsInput;
  readonly files: readonly JudgedFile[];
}

/**
 * What verify counts from a step: its recorded tool results and artifacts. An artifact's content is
 * read from the workspace (the step log keeps none) and passed only while the file still is the
 * version the step wrote; a later write leaves `contains` unproven for the old version.
 */
export async function stepEvidence(
  workspace: Pick<Workspace, "readFile">,
  record: GoalRecord,
  step: StepRecord,
): Promise<StepEvidence> {
  const { artifacts } = step.observations;
  const files = await readStepFiles(workspace, record, artifacts);
  const current = [...files.entries()].flatMap(([path, file]) =>
    artifacts.some((artifact) => artifact.path === path && artifact.sha256 === file.sha256)
      ? [{ path, content: file.content }]
      : [],
  );
  return { observations: stepObservations(step, files), files: current };
}

/**
 * The step's observations as verify counts them, each artifact with its content when `files` holds
 * the version the step wrote. Without `files` (no content), they have the same fingerprints: a
 * fingerprint names a path and a hash, never content.
 */
function stepObservations(
  step: StepRecord,
  files: ReadonlyMap<string, { sha256: string; content: string }> = new Map(),
): CycleObservationsInput {
  const { artifacts, toolResults } = step.observations;
  return {
    artifacts: artifacts.map((artifact) => {
      const file = files.get(artifact.path);
      return file?.sha256 === artifact.sha256 ? { ...artifact, content: file.content } : { ...artifact };
    }),
    toolResults: [...toolResults],
    modelClaims: { done: claimsDone(step), satisfiedChecks: [] },
    note: stepNote(step),
  };
}

type JudgeCheck = SuccessCheck & { verify: { kind: "model_judge" } };

function isJudgeCheck(check: SuccessCheck): check is JudgeCheck {
  return check.verify.kind === "model_judge";
}

/**
 * Judges every unsatisfied model_judge check against the step, one call of `role` each (`judge`, or
 * Reflexion's `evaluate`), checkpointed under (run, iteration, role, ordinal = the check's index
 * among the model_judge checks). Calls run one after another so each gets its own call number.
 */
export async function judgeStep(
  ports: VerifyPorts,
  input: {
    record: GoalRecord;
    step: StepRecord;
    files: readonly JudgedFile[];
    iteration: number;
    models: ModelTiers;
    /** @default "judge" */
    role?: JudgeRole;
  },
): Promise<Judgement[]> {
  const { record } = input;
  const role = input.role ?? "judge";
  const checks = record.spec.successChecks.filter(isJudgeCheck);
  const judgements: Judgement[] = [];
  // Each call is paid from what the calls before it in this step left (none is counted yet).
  let spentUsd = 0;
  for (const [ordinal, check] of checks.entries()) {
    if (evidenceFor(record, check)) continue;
    const key = {
      goalId: record.goalId,
      runId: checkpointRunId(record, { runId: record.runId, iteration: input.iteration }),
      iteration: input.iteration,
      role,
      ordinal,
    };
    const checkpoint = await checkpointedCall(
      ports,
      key,
      (call) =>
        judgeRequest({
          record,
          check,
          evidence: judgeEvidenceText(input.step, input.files),
          model: modelFor(record.spec, role, input.models),
          call,
          role,
        }),
      {
        budget: { remainingUsd: Math.max(0, remainingBudgetUsd(record) - spentUsd) },
        capacity: capacityContextOf(record),
        recordSchema: record.schema,
      },
    );
    spentUsd += costOf(checkpoint.turn.modelId, checkpoint.turn.usage);
    judgements.push({ checkId: check.id, checkpoint, verdict: parseVerdict(checkpoint.turn) });
  }
  return judgements;
}

/**
 * The verify cycle of one step, as one change: the judge calls' usage (under the role each call
 * played), their verdicts (weak evidence), then `recordCycle` over the step's observations
 * (evidence, progress, pause).
 */
export function verifyChange(
  record: GoalRecord,
  step: StepRecord,
  evidence: StepEvidence,
  judgements: readonly Judgement[],
  now: Date,
  seenBefore: readonly string[] = [],
  progressFrom: readonly string[] = [],
): GoalChange {
  // A step made before the contract changed is counted, but proves nothing for the new checks; nor
  // does one a corrective saga undid before it was verified (its files are back as they were).
  const since = contractSince(record);
  const saga = record.saga;
  const undone = saga !== undefined && step.step >= saga.fromStep && step.step <= saga.toStep;
  const underOldContract = (since !== undefined && Date.parse(step.at) < Date.parse(since)) || undone;
  return chain(
    record,
    ...judgements.map(
      ({ checkpoint }) =>
        (current: GoalRecord) =>
          recordModelUsage(current, checkpoint.key.role, checkpoint.turn, now),
    ),
    ...(underOldContract ? [] : judgements).map(
      ({ checkId, checkpoint, verdict }) =>
        (current: GoalRecord) =>
          recordJudgement(current, {
            checkId,
            modelId: checkpoint.turn.modelId,
            verdict: verdict.text,
            satisfied: verdict.satisfied,
            now,
            iteration: step.iteration,
          }),
    ),
    (current) =>
      recordCycle(current, evidence.observations, {
        now,
        iteration: step.iteration,
        seenBefore,
        progressFrom,
        underOldContract,
      }),
  );
}

/**
 * What a running goal does after verify: complete when every check has evidence (before any limit:
 * the step that used the last step up may have finished the job). A reached limit does not end the
 * goal here: VerifyAndReason answers `limit_decision` and a human extends the limit or terminates.
 */
export function decideChange(record: GoalRecord, now: Date): GoalChange | undefined {
  if (record.status !== "running") return undefined;
  if (unsatisfiedCheckIds(record).length === 0) return complete(record, now);
  return undefined;
}

/** The latest logged step no cycle has counted yet, with its evidence and the judge calls about it. */
export interface PendingVerification {
  readonly step: StepRecord;
  readonly evidence: StepEvidence;
  readonly judgements: readonly Judgement[];
  /** The step's fingerprints an earlier step saw first (the goal store's answer): not progress. */
  readonly seenBefore: readonly string[];
}

/**
 * Everything the verify cycle of the latest step needs that is read or paid for before the commit:
 * its evidence and one judge call (role `judge`, or `evaluate` in Reflexion) per unsatisfied
 * model_judge check. Undefined when the latest step was counted already (a retry, or no step yet).
 */
export async function prepareVerification(
  ports: VerifyPorts,
  input: {
    record: GoalRecord;
    latest: StepRecord | undefined;
    models: ModelTiers;
    role?: JudgeRole;
  },
): Promise<PendingVerification | undefined> {
  const { record, latest } = input;
  if (!latest || latest.step <= record.steps) return undefined;
  const judged = async () => {
    const evidence = await stepEvidence(ports.workspace, record, latest);
    const judgements = await judgeStep(ports, {
      record,
      step: latest,
      files: evidence.files,
      iteration: record.runIteration,
      models: input.models,
      ...(input.role === undefined ? {} : { role: input.role }),
    });
    return { evidence, judgements };
  };
  // Before the commit, so a retried verify of this step finds its fingerprints tagged with this step.
  // Beside the file reads and the judge calls: fingerprints name paths and hashes, not the content
  // those read, and a verify retried after a judge call failed gets the same answer again.
  const [{ evidence, judgements }, seenBefore] = await Promise.all([
    judged(),
    ports.goals.seenBefore(record.goalId, latest.step, cycleFingerprints(stepObservations(latest))),
  ]);
  return { step: latest, evidence, judgements, seenBefore };
}

/**
 * Whether verifying a step of `record` makes a judge call (`judgeStep`): a model_judge check without
 * evidence yet. Without one, the verify cycle checkpoints no call, so what a step reads of the
 * goal's calls may be read beside it.
 */
export function judgesPending(record: GoalRecord): boolean {
  return record.spec.successChecks.some((check) => isJudgeCheck(check) && !evidenceFor(record, check));
}

/** Whether `pending` still waits to be counted in `record` (a racing commit may have counted it). */
export function isUncounted(
  record: GoalRecord,
  pending: PendingVerification | undefined,
): pending is PendingVerification {
  return pending !== undefined && record.steps < pending.step.step;
}

/**
 * The verify cycle of `pending` (see verifyChange), unless it is counted already. `progressFrom`:
 * progress the pattern saw itself in the step (a plan step that succeeded).
 */
export function verifyPending(
  record: GoalRecord,
  pending: PendingVerification | undefined,
  now: Date,
  progressFrom: readonly string[] = [],
): GoalChange | undefined {
  return isUncounted(record, pending)
    ? verifyChange(
        record,
        pending.step,
        pending.evidence,
        pending.judgements,
        now,
        pending.seenBefore,
        progressFrom,
      )
    : undefined;
}
