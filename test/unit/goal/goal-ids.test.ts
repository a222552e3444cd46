import { describe, expect, it } from "vitest";
import {
  GOAL_ID_PATTERN,
  goalIdForIdempotencyKey,
  goalIdFromBytes,
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
});
