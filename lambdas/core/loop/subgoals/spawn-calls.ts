import type { GoalRecord } from "../../goal/goal-record";
import { isSettledEntry, SPAWN_SUBGOAL_TOOL, type SubgoalEntry } from "../../goal/subgoals";
import { toolUsesOf } from "../../models/model-answer";
import type { ModelTurn, ToolUseBlock } from "../../ports/model-client";
import { toolCallIdempotencyKey } from "../../ports/tool-runner";
import { gateOf } from "../gates/action-gate";
import { grantedTools } from "../loop-deps";
import { executedStep, isOffPlan } from "../off-plan-call";

/** The acting turn of an iteration: its checkpoint's run (a run that took over keeps the old one's) and iteration. */
export interface TurnKey {
  readonly runId: string;
  readonly iteration: number;
}

/** One `spawn_subgoal` call the loop runs itself, with the key its entry and its child go by. */
export interface SpawnCall {
  readonly call: ToolUseBlock;
  /** `toolCallIdempotencyKey` of the call. */
  readonly callKey: string;
}

/**
 * The turn's `spawn_subgoal` calls that start a sub-goal: granted to the goal, in a turn not cut off
 * by max_tokens, and not answered otherwise (a call off the plan step's tool, or one a human
 * rejected at the gate). The tool runner answers the others as it answers any call.
 */
export function spawnCallsOf(
  record: GoalRecord,
  turn: ModelTurn,
  turnKey: TurnKey,
  defaultTools: readonly string[],
): SpawnCall[] {
  if (turn.stopReason === "max_tokens") return [];
  if (!grantedTools(record, defaultTools).includes(SPAWN_SUBGOAL_TOOL)) return [];
  const gate = gateOf(record, { runId: record.runId, iteration: turnKey.iteration });
  const refusedByGate = (call: ToolUseBlock) =>
    gate !== undefined &&
    (gate.outcome === "rejected" || gate.outcome === "expired") &&
    gate.toolUseIds.includes(call.toolUseId);
  const planStep = executedStep(record, turnKey);
  return toolUsesOf(turn)
    .filter((call) => call.name === SPAWN_SUBGOAL_TOOL && !isOffPlan(planStep, call) && !refusedByGate(call))
    .map((call) => ({
      call,
      callKey: toolCallIdempotencyKey({
        goalId: record.goalId,
        runId: turnKey.runId,
        iteration: turnKey.iteration,
        toolUseId: call.toolUseId,
      }),
    }));
}

/** The record's entry for a spawn call, if the call was planned already. */
export function entryOf(record: GoalRecord, callKey: string): SubgoalEntry | undefined {
  return record.subgoals?.find((entry) => entry.callKey === callKey);
}

/**
 * Whether the turn still waits on sub-goals before Act can answer its calls: a spawn call not
 * planned yet, or one whose child has not ended.
 */
export function awaitsSubgoals(record: GoalRecord, spawns: readonly SpawnCall[]): boolean {
  return spawns.some(({ callKey }) => {
    const entry = entryOf(record, callKey);
    return entry === undefined || !isSettledEntry(entry);
  });
}
