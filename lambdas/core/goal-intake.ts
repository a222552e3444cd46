import { isDeepStrictEqual } from "node:util";
import { createGoalRecord } from "./create-goal";
import { GoalLoopsError } from "./errors";
import type { GoalChange } from "./goal-change";
import type { GoalRecord } from "./goal-record";
import { parseGoalSpec } from "./goal-spec";
import { selectPattern } from "./pattern-selector";

/** The first run of every goal; resume and continue-as-new number the next ones r2, r3, … */
export const FIRST_RUN_ID = "r1";

/** What the selector's fallback adds to `patternReason` while the `select` model role is not called. */
export const SELECT_FALLBACK_NOTE = "fallback used: the select role is not called yet";

export interface GoalIntakeInput {
  /** The submitted GoalSpec, not yet validated (a parsed request body). */
  readonly body: unknown;
  readonly goalId: string;
  readonly tenantId: string;
  readonly now: Date;
}

/**
 * Turns a submitted GoalSpec into a new goal running its first run: validates it (ValidationError
 * naming each bad field), chooses the pattern and records why. When no selector rule applies the
 * `select` model role should decide; until it is wired the selector's fallback stands, and the
 * reason says so, so a later reader knows no model chose it.
 */
export function intakeGoal(input: GoalIntakeInput): GoalChange {
  const spec = parseGoalSpec(input.body);
  const choice = selectPattern(spec);
  const patternReason = choice.needsModel ? `${choice.reason}; ${SELECT_FALLBACK_NOTE}` : choice.reason;
  return createGoalRecord({
    spec,
    goalId: input.goalId,
    tenantId: input.tenantId,
    runId: FIRST_RUN_ID,
    now: input.now,
    pattern: choice.pattern,
    patternReason,
  });
}

/** An Idempotency-Key was sent again with a different GoalSpec than the goal it created. */
export class IdempotencyKeyReusedError extends GoalLoopsError {
  override readonly name = "IdempotencyKeyReusedError";
  readonly goalId: string;

  constructor(goalId: string) {
    super(`This Idempotency-Key already created goal '${goalId}' from a different GoalSpec`);
    this.goalId = goalId;
  }
}

/**
 * Throws IdempotencyKeyReusedError when `existing` (the goal a key already created) did not come from
 * the same spec as `retried`. Only a goal still at revision 1 can be compared: a human revision
 * changes the stored spec, and a late retry of the original request must still find its goal.
 */
export function assertSameSubmission(existing: GoalRecord, retried: GoalRecord): void {
  if (existing.revision !== 1) return;
  // Through JSON both ways: stored specs lose undefined fields, fresh ones may still carry them.
  if (!isDeepStrictEqual(plainJson(existing.spec), plainJson(retried.spec))) {
    throw new IdempotencyKeyReusedError(existing.goalId);
  }
}

function plainJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
