import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import { waitFor } from "../../goal/goal-lifecycle";
import type { GoalRecord } from "../../goal/goal-record";
import type { Pattern } from "../../goal/goal-spec";
import { runStateMachineArn, type VersionTarget } from "../../goal/runs-on";
import { type SubgoalEntry, subgoalWaitId } from "../../goal/subgoals";
import type { DeadlineSchedule } from "../../ports/deadline-schedule";
import { GoalAlreadyExistsError, type VersionedGoal } from "../../ports/goal-store";
import type { StartRun, VersionDirectory } from "../../ports/run-control";
import { reasonTurnOf } from "../act";
import { executedStep } from "../off-plan-call";
import { isRunningIn, type RunPosition, type StepResult, stopped } from "../step-result";
import { chain, readGoal, updateGoal } from "../update-goal";
import { type SettleChildrenPorts, SUBGOAL_ENDED_EVENT, settleEndedChildren } from "./child-ended";
import { CHILD_FIRST_RUN_ID, type PlannedSpawn, planChildren, type SubgoalSettings } from "./plan-children";
import { awaitsSubgoals, entryOf, type SpawnCall, spawnCallsOf, type TurnKey } from "./spawn-calls";

export interface AwaitSubgoalsPorts extends SettleChildrenPorts {
  /** Starts a child's first run (idempotent by execution name). */
  readonly startRun: StartRun;
  /** Pattern → state machine ARN: where each child runs. */
  readonly stateMachineArns: Readonly<Partial<Record<Pattern, string>>>;
  /**
   * The deployed versions: a child runs on its parent's (the same deploy's version of the child's
   * pattern), so parent and child read each other's records in one shape. Absent (tests): children
   * name no version and start on the live alias.
   */
  readonly versions?: VersionDirectory;
  /** A child's deadline schedule, so its limits hold while it waits; failures are reported, not thrown. */
  readonly deadlines?: { readonly schedule: DeadlineSchedule; readonly onError: (error: unknown) => void };
}

export interface AwaitSubgoalsInput extends RunPosition {
  readonly next: "subgoal";
  readonly taskToken: string;
}

export type AwaitSubgoalsResult =
  | { readonly outcome: "waiting"; readonly waitId: string; readonly children: readonly string[] }
  | { readonly outcome: "answered"; readonly next: StepResult["next"] };

/**
 * AwaitSubgoals (invoked with `.waitForTaskToken`): the iteration's turn called `spawn_subgoal`.
 * Each call that has no entry yet is planned (`planChildren`): its child's first record is stored
 * before the parent names it, then the parent records the entries (`subgoal.started`,
 * `subgoal.refused`), each child's first run is started, and the parent waits on this task token
 * (`waiting`, kind `subgoal`) until every child of the turn ended. Children that ended before the
 * parent parked are seen at once (`settleEndedChildren`). Nothing to wait for (every call refused,
 * every child ended): the token is answered with `act` right away, and Act answers the calls.
 *
 * A retry repeats nothing: children are found by their derived ids, entries by their calls, runs
 * by their execution names. A parent already waiting on this wait (its task timed out and asks
 * again, or a re-attached run parks) keeps it and only its token is replaced.
 */
export async function awaitSubgoals(
  ports: AwaitSubgoalsPorts,
  settings: SubgoalSettings,
  input: AwaitSubgoalsInput,
): Promise<AwaitSubgoalsResult> {
  const position: RunPosition = { goalId: input.goalId, runId: input.runId, iteration: input.iteration };
  let loaded = await readGoal(ports.goals, input.goalId);
  if (waitsOnSubgoals(loaded.record, input.runId)) {
    const reparked = await repark(ports, loaded, input);
    if (reparked) return reparked;
    // Woken meanwhile (its children ended while the old token timed out): go on as a running goal.
    loaded = await readGoal(ports.goals, input.goalId);
  }
  const { record } = loaded;
  if (!isRunningIn(record, input.runId)) return answer(ports, input, stopped(record, position).next);
  const iteration = record.runIteration;
  const checkpoint = await reasonTurnOf(ports.goals, record, iteration);
  // No turn to act on: Act says so (ReasonCheckpointMissingError), as it would without this step.
  if (!checkpoint) return answer(ports, input, "act");
  const turnKey: TurnKey = { runId: checkpoint.key.runId, iteration };
  const spawns = spawnCallsOf(record, checkpoint.turn, turnKey, settings.defaultTools);
  const fresh = spawns.filter((spawn) => entryOf(record, spawn.callKey) === undefined);
  const now = ports.now();
  const targets = fresh.length === 0 ? {} : await childTargets(ports, record, settings.patterns);
  const planned = planChildren(record, fresh, settings, {
    now,
    turn: turnKey,
    targets,
    ...stepRequestOf(record, turnKey),
  });
  const entries = await storeChildren(ports, planned);
  const recorded = await updateGoal(ports.goals, loaded, (current) =>
    isRunningIn(current, input.runId) ? addEntries(current, entries, now) : undefined,
  );
  if (!isRunningIn(recorded.record, input.runId)) {
    return answer(ports, input, stopped(recorded.record, position).next);
  }
  await startChildren(ports, recorded.record, turnKey);
  if (!awaitsSubgoals(recorded.record, spawns)) return answer(ports, input, "act");
  return park(ports, recorded, input, turnKey, spawns);
}

/**
 * The version a child of each pattern runs on: its parent's deploy's version of that pattern, else
 * (a parent from before versions, or a deploy that kept none of the pattern) the live one.
 */
async function childTargets(
  ports: AwaitSubgoalsPorts,
  parent: GoalRecord,
  patterns: readonly Pattern[],
): Promise<Partial<Record<Pattern, VersionTarget>>> {
  const { versions } = ports;
  if (versions === undefined) return {};
  const version = parent.runsOn?.version;
  const targets: Partial<Record<Pattern, VersionTarget>> = {};
  for (const pattern of patterns) {
    if (ports.stateMachineArns[pattern] === undefined) continue;
    const same = version === undefined ? undefined : await versions.ofVersion(pattern, version);
    targets[pattern] = same ?? (await versions.live(pattern));
  }
  return targets;
}

/** A plan step that carries a `subgoal`: the child is the one the plan describes. */
function stepRequestOf(record: GoalRecord, turnKey: TurnKey): { stepRequest?: unknown } {
  const step = executedStep(record, turnKey);
  return step?.subgoal === undefined ? {} : { stepRequest: step.subgoal };
}

/**
 * Stores each planned child's first record (`goal.created`, with its parent and depth). A child
 * stored by an earlier attempt is adopted as it is: the entry reserves the limits it really has.
 */
async function storeChildren(
  ports: AwaitSubgoalsPorts,
  planned: readonly PlannedSpawn[],
): Promise<SubgoalEntry[]> {
  const entries: SubgoalEntry[] = [];
  for (const { entry, child } of planned) {
    if (!child) {
      entries.push(entry);
      continue;
    }
    try {
      await ports.goals.createGoal(child.record, child.events);
      entries.push(entry);
    } catch (error) {
      if (!(error instanceof GoalAlreadyExistsError)) throw error;
      const stored = await ports.goals.getGoal(child.record.goalId);
      const limits = stored?.record.spec.limits ?? child.record.spec.limits;
      entries.push({ ...entry, reserved: { maxCostUsd: limits.maxCostUsd, maxSteps: limits.maxSteps } });
    }
  }
  return entries;
}

function addEntries(record: GoalRecord, entries: readonly SubgoalEntry[], now: Date): GoalChange | undefined {
  const fresh = entries.filter((entry) => entryOf(record, entry.callKey) === undefined);
  if (fresh.length === 0) return undefined;
  const next: GoalRecord = {
    ...record,
    updatedAt: now.toISOString(),
    subgoals: [...(record.subgoals ?? []), ...fresh],
  };
  return settle(
    next,
    fresh.map((entry) =>
      entry.status === "refused"
        ? goalEvent(next, "subgoal.refused", now, {
            toolUseId: entry.toolUseId,
            errorName: entry.refusal?.name ?? "Refused",
            message: entry.refusal?.message ?? "",
          })
        : goalEvent(next, "subgoal.started", now, {
            subgoalId: entry.goalId ?? null,
            toolUseId: entry.toolUseId,
            pattern: entry.pattern ?? null,
            objective: entry.objective,
            maxCostUsd: entry.reserved?.maxCostUsd ?? null,
            maxSteps: entry.reserved?.maxSteps ?? null,
          }),
    ),
  );
}

/**
 * Starts the first run of each running child of the turn that is still at it (a started run is
 * started again by name: a no-op), and sets its deadline schedule.
 */
async function startChildren(ports: AwaitSubgoalsPorts, record: GoalRecord, turnKey: TurnKey): Promise<void> {
  const children = (record.subgoals ?? []).filter(
    (entry) =>
      entry.status === "running" &&
      entry.goalId !== undefined &&
      entry.runId === turnKey.runId &&
      entry.iteration === turnKey.iteration,
  );
  for (const entry of children) {
    const found = entry.goalId === undefined ? undefined : await ports.goals.getGoal(entry.goalId);
    const child = found?.record;
    if (child?.status !== "running" || child.runId !== CHILD_FIRST_RUN_ID) continue;
    const stateMachineArn = runStateMachineArn(child, ports.stateMachineArns);
    if (stateMachineArn === undefined) continue;
    await ports.startRun({ stateMachineArn, goalId: child.goalId, runId: CHILD_FIRST_RUN_ID });
    const deadline = child.spec.limits.deadline;
    if (deadline !== undefined && ports.deadlines) {
      await ports.deadlines.schedule.set(child.goalId, deadline).catch(ports.deadlines.onError);
    }
  }
}

/** Parks the parent on the token until the turn's children ended, then looks at them once. */
async function park(
  ports: AwaitSubgoalsPorts,
  loaded: VersionedGoal,
  input: AwaitSubgoalsInput,
  turnKey: TurnKey,
  spawns: readonly SpawnCall[],
): Promise<AwaitSubgoalsResult> {
  const waitId = subgoalWaitId(input.goalId, turnKey);
  const now = ports.now();
  const goalIds = spawns.flatMap(({ callKey }) => {
    const entry = entryOf(loaded.record, callKey);
    return entry?.status === "running" && entry.goalId !== undefined ? [entry.goalId] : [];
  });
  const parked = await updateGoal(ports.goals, loaded, (current) => {
    if (!isRunningIn(current, input.runId)) return undefined;
    return chain(
      current,
      (next) =>
        waitFor(
          next,
          {
            kind: "subgoal",
            approvalId: waitId,
            reason: `waiting for ${goalIds.length === 1 ? "sub-goal" : "sub-goals"} ${goalIds.join(", ")} to end`,
            goalIds,
          },
          { eventType: SUBGOAL_ENDED_EVENT, approvalId: waitId, revision: next.revision },
          now,
        ),
      (next) =>
        settle(
          {
            ...next,
            subgoalWait: {
              waitId,
              runId: turnKey.runId,
              iteration: turnKey.iteration,
              taskToken: input.taskToken,
              since: now.toISOString(),
            },
          },
          [],
        ),
    );
  });
  if (parked.record.status !== "waiting" || parked.record.waitingFor?.approvalId !== waitId) {
    return answer(ports, input, stopped(parked.record, input).next);
  }
  await settleEndedChildren(ports, input.goalId);
  return { outcome: "waiting", waitId, children: goalIds };
}

function waitsOnSubgoals(record: GoalRecord, runId: string): boolean {
  return record.status === "waiting" && record.runId === runId && record.waitingFor?.kind === "subgoal";
}

/**
 * The same wait asked again (a timeout, a re-attached run): the new token replaces the old.
 * Undefined when the goal no longer waits on it.
 */
async function repark(
  ports: AwaitSubgoalsPorts,
  loaded: VersionedGoal,
  input: AwaitSubgoalsInput,
): Promise<AwaitSubgoalsResult | undefined> {
  const waitId = loaded.record.waitingFor?.approvalId ?? "";
  const now = ports.now();
  const replaced = await updateGoal(ports.goals, loaded, (current) => {
    const wait = current.subgoalWait;
    if (current.status !== "waiting" || wait?.waitId !== waitId) return undefined;
    return settle(
      { ...current, updatedAt: now.toISOString(), subgoalWait: { ...wait, taskToken: input.taskToken } },
      [],
    );
  });
  const wait = replaced.record.subgoalWait;
  if (!waitsOnSubgoals(replaced.record, input.runId) || wait?.taskToken !== input.taskToken) return undefined;
  await startChildren(ports, replaced.record, wait);
  await settleEndedChildren(ports, input.goalId);
  return { outcome: "waiting", waitId, children: replaced.record.waitingFor?.goalIds ?? [] };
}

async function answer(
  ports: AwaitSubgoalsPorts,
  input: AwaitSubgoalsInput,
  next: StepResult["next"],
): Promise<AwaitSubgoalsResult> {
  const { goalId, runId, iteration } = input;
  await ports.callback.succeed(input.taskToken, { goalId, runId, iteration, next });
  return { outcome: "answered", next };
}
