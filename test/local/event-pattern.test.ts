import { describe, expect, it } from "vitest";
import { checkEventPattern, matchesEventPattern } from "../../lib/local/eventbridge/event-pattern";
import type { JsonObject } from "../../lib/local/shared/cloud-assembly-model";
import { CloudAssemblyError } from "../../lib/local/shared/errors";

const event: JsonObject = {
  source: "goal-loops.human-input",
  "detail-type": "approval.decided",
  resources: ["arn:a", "arn:b"],
  detail: { decision: "approve", goalId: "g-1", attempts: 3, comment: null, tags: ["x", "y"] },
};

describe("matchesEventPattern", () => {
  it.each<[string, JsonObject, boolean]>([
    ["exact values", { source: ["goal-loops.human-input"], "detail-type": ["approval.decided"] }, true],
    ["any of several values", { "detail-type": ["revision.requested", "approval.decided"] }, true],
    ["a value that differs", { source: ["other"] }, false],
    ["nested fields", { detail: { decision: ["approve"] } }, true],
    ["a nested field that differs", { detail: { decision: ["reject"] } }, false],
    ["an element of an array field", { detail: { tags: ["y"] } }, true],
    ["prefix", { detail: { goalId: [{ prefix: "g-" }] } }, true],
    ["prefix that differs", { detail: { goalId: [{ prefix: "x-" }] } }, false],
    ["suffix", { source: [{ suffix: ".human-input" }] }, true],
    ["equals-ignore-case", { detail: { decision: [{ "equals-ignore-case": "APPROVE" }] } }, true],
    ["anything-but a value", { detail: { decision: [{ "anything-but": "reject" }] } }, true],
    [
      "anything-but a list holding the value",
      { detail: { decision: [{ "anything-but": ["approve", "x"] }] } },
      false,
    ],
    ["anything-but a prefix", { detail: { goalId: [{ "anything-but": { prefix: "g-" } }] } }, false],
    ["exists true on a present field", { detail: { goalId: [{ exists: true }] } }, true],
    ["exists true on a missing field", { detail: { missing: [{ exists: true }] } }, false],
    ["exists false on a missing field", { detail: { missing: [{ exists: false }] } }, true],
    ["null", { detail: { comment: [null] } }, true],
    ["a missing field against a value", { detail: { missing: ["x"] } }, false],
    ["numeric range", { detail: { attempts: [{ numeric: [">", 2, "<=", 3] }] } }, true],
    ["numeric range that excludes", { detail: { attempts: [{ numeric: [">", 3] }] } }, false],
    [
      "$or with one matching branch",
      { $or: [{ source: ["x"] }, { detail: { decision: ["approve"] } }] },
      true,
    ],
  ])("%s", (_name, pattern, expected) => {
    // Act + Assess
    expect(matchesEventPattern(pattern, event)).toBe(expected);
  });
});

describe("checkEventPattern", () => {
  it("refuses an operator the local matcher does not implement, naming it and the rule", () => {
    // Act
    const check = () => checkEventPattern({ detail: { ip: [{ cidr: "10.0.0.0/8" }] } }, "Stack/Rule1");

    // Assess
    expect(check).toThrow(CloudAssemblyError);
    expect(check).toThrow(/Stack\/Rule1: event pattern operator 'cidr' at detail\.ip/);
  });
});
