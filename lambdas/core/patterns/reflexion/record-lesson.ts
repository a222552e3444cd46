import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { type Lesson, MAX_LESSON_CHARS } from "../../goal/lesson";
import { clip } from "../../goal/text";
import { turnText } from "../../models/model-answer";
import type { ModelTurn } from "../../ports/model-client";

/**
 * How many lessons the goal keeps (oldest dropped first): a human may extend `maxAttempts` up to
 * 1,000, and the goal record must stay one DynamoDB item.
 */
export const MAX_STORED_LESSONS = 20;

/** The lesson about `attempt`, if the reflector already drew one. */
export function lessonFor(record: GoalRecord, attempt: number): Lesson | undefined {
  return record.lessons?.find((lesson) => lesson.attempt === attempt);
}

/**
 * Whether Reflect has work: an attempt was made (a goal still running after it was evaluated has
 * failed it) and no lesson about it is stored yet.
 */
export function needsLesson(record: GoalRecord): boolean {
  const attempt = record.attempts ?? 0;
  return attempt > 0 && lessonFor(record, attempt) === undefined;
}

/**
 * The lesson text of a reflect turn: its text on one line, bounded. An empty answer still makes a
 * lesson (saying so), or Evaluate would ask for the same reflection again.
 */
export function lessonText(turn: ModelTurn, attempt: number): string {
  const text = turnText(turn, " ").replace(/\s+/g, " ").trim();
  if (text === "") return `Attempt ${attempt} failed; the reflection gave no lesson.`;
  return clip(text, MAX_LESSON_CHARS);
}

/**
 * Stores the lesson about `attempt` (event `lesson.recorded`). Accepted in every status, like the
 * reflect call's usage: the call was paid for, and a resumed goal's next attempt should see it. A
 * second lesson about the same attempt changes nothing.
 */
export function recordLesson(
  record: GoalRecord,
  lesson: { readonly attempt: number; readonly text: string },
  now: Date,
): GoalChange | undefined {
  if (lessonFor(record, lesson.attempt)) return undefined;
  const stored: Lesson = { attempt: lesson.attempt, text: lesson.text, at: now.toISOString() };
  const lessons = [...(record.lessons ?? []), stored].slice(-MAX_STORED_LESSONS);
  const next: GoalRecord = { ...record, lessons, updatedAt: stored.at };
  return settle(next, [
    goalEvent(next, "lesson.recorded", now, { attempt: stored.attempt, text: stored.text }),
  ]);
}

/** The stored lessons as prompt lines, oldest first (each lesson is one line: see `lessonText`). */
export function lessonLines(record: GoalRecord): string[] {
  return (record.lessons ?? []).map((lesson) => `- Attempt ${lesson.attempt}: ${lesson.text}`);
}
