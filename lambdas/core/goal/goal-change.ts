import type * as z from "../zod";
import type { NewGoalEvent } from "./goal-event";
import type { GoalRecord } from "./goal-record";
import { assertInvariants } from "./invariants";

/** A JSON value, as event fields must be. */
export type JsonValue = z.core.util.JSONType;

/**
 * What every state-changing core operation returns: the new record and the events to append. The
 * adapter commits both in one conditional write, so the log and the record never disagree.
 */
export interface GoalChange {
  readonly record: GoalRecord;
  readonly events: NewGoalEvent[];
}

/** An event of the goal's current run, stamped with `now`. */
export function goalEvent(
  record: Pick<GoalRecord, "runId">,
  type: string,
  now: Date,
  fields: Record<string, JsonValue> = {},
): NewGoalEvent {
  return { ...fields, type, at: now.toISOString(), runId: record.runId };
}

/**
 * Checks the invariants of the new record and packs it with its events. Every operation ends here.
 * A goal that stops running stops waiting for model capacity with it (its booking, if any, simply
 * passes unused), whichever transition stopped it.
 */
export function settle(record: GoalRecord, events: NewGoalEvent[]): GoalChange {
  const settled =
    record.status !== "running" && record.activity !== undefined
      ? { ...record, activity: undefined }
      : record;
  assertInvariants(settled);
  return { record: settled, events };
}
