import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../lambdas/core/goal/errors";
import { parseGoalSpec } from "../../../lambdas/core/goal/goal-spec";
import {
  assertWithinJsonBounds,
  MAX_GOAL_SPEC_BYTES,
  MAX_JSON_DEPTH,
  pathPastDepth,
} from "../../../lambdas/core/goal/json-bounds";
import { queueRevision } from "../../../lambdas/core/goal/revisions";
import { buildGoal, NOW, specInput } from "./support";

/** `{"a": {"a": … 1 …}}` with `levels` objects, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level += 1) value = { a: value };
  return value;
}

/** A spec whose tool_result check expects `equals` to be `value`: five levels above it. */
function specExpecting(value: unknown) {
  return specInput({
    successChecks: [
      {
        id: "deep",
        description: "the tool answers the deep value",
        verify: { kind: "tool_result", tool: "run_tests", expect: { equals: value as never } },
      },
    ],
  });
}

function refusal(act: () => unknown): ValidationError {
  try {
    act();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error("expected a ValidationError");
}

describe("JSON bounds", () => {
  it("finds the first container past the depth limit, and none within it", () => {
    // Act + Assess: the root object is level 1
    expect(pathPastDepth(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBeUndefined();
    expect(pathPastDepth(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toHaveLength(MAX_JSON_DEPTH);
    expect(pathPastDepth([[[]]], 2)).toEqual([0, 0]);
    expect(pathPastDepth("text", 0)).toBeUndefined();
  });

  it("walks input far deeper than the stack without overflowing", () => {
    // Act
    const path = pathPastDepth(nested(200_000), MAX_JSON_DEPTH);

    // Assess
    expect(path).toHaveLength(MAX_JSON_DEPTH);
  });

  it("refuses a GoalSpec nested past the limit before zod sees it, naming the limit and where", () => {
    // Act: 8,125 levels overflowed zod's stack before the limit existed
    const errors = [70, 1_000, 8_125, 50_000].map((levels) =>
      refusal(() => parseGoalSpec(specExpecting(nested(levels)))),
    );

    // Assess
    for (const error of errors) {
      expect(error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
      expect(error.issues).toHaveLength(1);
      expect(error.issues[0]?.path).toBe("successChecks.0.verify.expect.equals.a.…");
    }
  });

  it("accepts a GoalSpec whose deepest value stays within the limit", () => {
    // Prepare: the spec, the checks array, the check, verify, expect: five levels above equals
    const equals = nested(MAX_JSON_DEPTH - 5);

    // Act
    const spec = parseGoalSpec(specExpecting(equals));

    // Assess
    expect(spec.successChecks[0]?.verify).toMatchObject({ kind: "tool_result", expect: { equals } });
  });

  it("refuses a GoalSpec larger than its size limit, naming the limit", () => {
    // Prepare: every field within its own maximum, the whole over the limit
    const spec = specExpecting("x".repeat(MAX_GOAL_SPEC_BYTES));

    // Act
    const error = refusal(() => parseGoalSpec(spec));

    // Assess
    expect(error.message).toContain(`the limit of a GoalSpec is ${MAX_GOAL_SPEC_BYTES} bytes`);
    expect(error.issues).toEqual([
      { path: "", message: expect.stringContaining(String(MAX_GOAL_SPEC_BYTES)) },
    ]);
  });

  it("counts the size in UTF-8 bytes, not characters", () => {
    // Prepare: 100,000 three-byte characters are 300,000 bytes
    const value = { text: "€".repeat(100_000) };

    // Act + Assess
    expect(() => assertWithinJsonBounds(value, "thing", { maxDepth: 4, maxBytes: 250_000 })).toThrow(
      "is 300011 bytes of JSON; the limit of a thing is 250000 bytes",
    );
  });

  it("shows long keys of a deep path clipped", () => {
    // Prepare
    const key = "k".repeat(10_000);
    let value: unknown = 1;
    for (let level = 0; level < 10; level += 1) value = { [key]: value };

    // Act
    const error = refusal(() => assertWithinJsonBounds(value, "thing", { maxDepth: 3, maxBytes: 1e9 }));

    // Assess
    expect(error.issues[0]?.path.length).toBeLessThan(200);
  });

  it("refuses a revision too big for one EventBridge event, and one nested too deep", () => {
    // Prepare
    const checks = (equals: unknown) => [
      {
        id: "new-check",
        description: "the redirected goal's check",
        verify: { kind: "tool_result" as const, tool: "run_tests", expect: { equals: equals as never } },
      },
    ];
    const revision = (equals: unknown) => ({
      type: "redirect" as const,
      content: "announce in #release instead",
      requestedBy: "alice",
      successChecks: checks(equals),
    });
    const options = { revisionId: "rev-1", now: NOW };

    // Act
    const big = refusal(() => queueRevision(buildGoal(), revision("x".repeat(200 * 1024)), options));
    const deep = refusal(() => queueRevision(buildGoal(), revision(nested(10_000)), options));

    // Assess
    expect(big.message).toContain("the limit of a revision is 196608 bytes");
    expect(deep.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });
});
