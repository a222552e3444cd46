import { describe, expect, it } from "vitest";
import type { GoalRecord } from "../../../../lambdas/core/goal/goal-record";
import { MAX_LESSON_CHARS } from "../../../../lambdas/core/goal/lesson";
import {
  lessonText,
  MAX_STORED_LESSONS,
  needsLesson,
  recordLesson,
} from "../../../../lambdas/core/patterns/reflexion/record-lesson";
import { newGoal, says, T0 } from "../../loop/support";
import { reflexionSpec } from "./support";

function goal(attempts: number): GoalRecord {
  const { record } = newGoal(reflexionSpec(), { goalId: "g-lessons", pattern: "reflexion" });
  return { ...record, attempts };
}

describe("lessons", () => {
  it("keeps a reflection on one line, bounded", () => {
    // Act
    const spaced = lessonText(says("  It failed.\n\n  Root cause:   no command.  "), 1);
    const long = lessonText(says("x".repeat(MAX_LESSON_CHARS * 2)), 1);

    // Assess
    expect(spaced).toBe("It failed. Root cause: no command.");
    expect(long).toHaveLength(MAX_LESSON_CHARS);
    expect(long.endsWith("…")).toBe(true);
  });

  it("still makes a lesson of an empty reflection, so the same one is not asked for again", () => {
    // Act
    const text = lessonText(says("   "), 2);

    // Assess
    expect(text).toBe("Attempt 2 failed; the reflection gave no lesson.");
  });

  it("needs a lesson only for a made attempt that has none yet, and stores one per attempt", () => {
    // Prepare
    const fresh = goal(0);
    const failed = goal(1);

    // Act
    const recorded = recordLesson(failed, { attempt: 1, text: "Name the command." }, T0);
    const again = recorded && recordLesson(recorded.record, { attempt: 1, text: "Other." }, T0);

    // Assess
    expect(needsLesson(fresh)).toBe(false);
    expect(needsLesson(failed)).toBe(true);
    expect(recorded?.record.lessons).toEqual([
      { attempt: 1, text: "Name the command.", at: T0.toISOString() },
    ]);
    expect(recorded?.events.map((event) => event.type)).toEqual(["lesson.recorded"]);
    expect(recorded && needsLesson(recorded.record)).toBe(false);
    expect(again).toBeUndefined();
  });

  it("keeps the newest lessons when a goal has failed more attempts than it stores", () => {
    // Prepare
    let record = goal(MAX_STORED_LESSONS + 5);

    // Act
    for (let attempt = 1; attempt <= MAX_STORED_LESSONS + 5; attempt += 1) {
      record = recordLesson(record, { attempt, text: `lesson ${attempt}` }, T0)?.record ?? record;
    }

    // Assess
    expect(record.lessons).toHaveLength(MAX_STORED_LESSONS);
    expect(record.lessons?.[0]?.attempt).toBe(6);
    expect(record.lessons?.at(-1)?.attempt).toBe(MAX_STORED_LESSONS + 5);
  });
});
