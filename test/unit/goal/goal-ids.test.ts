import { describe, expect, it } from "vitest";
import {
  ApprovalIdSchema,
  approvalIdFromBytes,
  GOAL_ID_PATTERN,
  GoalIdSchema,
  goalIdForIdempotencyKey,
  goalIdFromBytes,
  RevisionIdSchema,
  revisionIdFromBytes,
} from "../../../lambdas/core/goal/goal-ids";

describe("goal ids", () => {
  it("formats 16 bytes as g- and 26 Crockford base32 characters", () => {
    // Act
    const zeros = goalIdFromBytes(new Uint8Array(16));
    const ones = goalIdFromBytes(new Uint8Array(16).fill(0xff));

    // Assess
    expect(zeros).toBe(`g-${"0".repeat(26)}`);
    // 128 one-bits: the top digit holds the 3 bits left over above 25 full digits
    expect(ones).toBe(`g-7${"z".repeat(25)}`);
    expect(ones).toMatch(GOAL_ID_PATTERN);
  });

  it("refuses any other byte count", () => {
    // Act + Assess
    expect(() => goalIdFromBytes(new Uint8Array(15))).toThrow(RangeError);
  });

  it("derives the same id for the same tenant and key, and different ids otherwise", () => {
    // Act
    const id = goalIdForIdempotencyKey("111111111111", "order-42");

    // Assess
    expect(id).toMatch(GOAL_ID_PATTERN);
    expect(goalIdForIdempotencyKey("111111111111", "order-42")).toBe(id);
    expect(goalIdForIdempotencyKey("222222222222", "order-42")).not.toBe(id);
    expect(goalIdForIdempotencyKey("111111111111", "order-43")).not.toBe(id);
    expect(goalIdForIdempotencyKey("a", "bc")).not.toBe(goalIdForIdempotencyKey("ab", "c"));
  });

  it("formats approval and revision ids as their prefix and lower-case hex", () => {
    // Act
    const approvalId = approvalIdFromBytes(new Uint8Array(16).fill(0xab));
    const revisionId = revisionIdFromBytes(new Uint8Array(12).fill(0x01));

    // Assess
    expect(approvalId).toBe(`ap-${"ab".repeat(16)}`);
    expect(revisionId).toBe(`rev-${"01".repeat(12)}`);
    expect(() => approvalIdFromBytes(new Uint8Array(12))).toThrow(RangeError);
    expect(() => revisionIdFromBytes(new Uint8Array(16))).toThrow(RangeError);
  });

  it("accepts the ids the system issues and nothing else", () => {
    // Prepare
    const goalId = goalIdFromBytes(new Uint8Array(16).fill(7));
    const approvalId = approvalIdFromBytes(new Uint8Array(16).fill(7));
    const revisionId = revisionIdFromBytes(new Uint8Array(12).fill(7));
    const notIds = ["", "g-1", `g-${"0".repeat(2042)}`, `${goalId}#x`, "../etc", "__proto__", `${goalId}\n`];

    // Act + Assess
    expect(GoalIdSchema.safeParse(goalId).success).toBe(true);
    expect(ApprovalIdSchema.safeParse(approvalId).success).toBe(true);
    expect(RevisionIdSchema.safeParse(revisionId).success).toBe(true);
    for (const notId of notIds) {
      expect(GoalIdSchema.safeParse(notId).success).toBe(false);
      expect(ApprovalIdSchema.safeParse(notId).success).toBe(false);
      expect(RevisionIdSchema.safeParse(notId).success).toBe(false);
    }
    // Crockford base32 leaves out i, l, o and u; ids are lower case.
    expect(GoalIdSchema.safeParse(`g-${"i".repeat(26)}`).success).toBe(false);
    expect(GoalIdSchema.safeParse(goalId.toUpperCase()).success).toBe(false);
    expect(ApprovalIdSchema.safeParse(approvalId.toUpperCase()).success).toBe(false);
  });
});
