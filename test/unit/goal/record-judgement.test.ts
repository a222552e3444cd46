import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../lambdas/core/goal/errors";
import { satisfiedCheckIds } from "../../../lambdas/core/goal/evidence/check-evidence";
import { recordCycle } from "../../../lambdas/core/goal/evidence/record-cycle";
import { recordJudgement } from "../../../lambdas/core/goal/evidence/record-judgement";
import { buildGoal, frozen, minutesLater } from "./support";

const JUDGED = {
  successChecks: [
    {
      id: "tone",
      description: "The summary is friendly",
      verify: { kind: "model_judge" as const, rubric: "friendly" },
    },
  ],
};

const judgement = {
  modelId: "scripted:judge",
  verdict: "Friendly enough.",
  now: minutesLater(1),
  iteration: 0,
};

describe("recordJudgement", () => {
  it("adds model_judge evidence labelled weak", () => {
    // Act
    const change = recordJudgement(buildGoal(JUDGED), { ...judgement, checkId: "tone", satisfied: true });

    // Assess
    expect(change.record.evidence).toEqual([
      expect.objectContaining({
        checkId: "tone",
        kind: "model_judge",
        strength: "weak",
        modelId: "scripted:judge",
      }),
    ]);
    expect(change.events.map((event) => [event.type, event.strength])).toEqual([
      ["judgement.recorded", "weak"],
      ["evidence.recorded", "weak"],
    ]);
  });

  it("lets the following cycle count the newly satisfied check as progress", () => {
    // Prepare
    const judged = frozen(
      recordJudgement(buildGoal(JUDGED), { ...judgement, checkId: "tone", satisfied: true }),
    );

    // Act
    const change = recordCycle(judged, {}, { now: minutesLater(2), iteration: 0 });

    // Assess
    expect(change.events.at(-1)).toMatchObject({ type: "progress", reasons: ["check tone satisfied"] });
  });

  it("adds no evidence for a negative verdict", () => {
    // Act
    const change = recordJudgement(buildGoal(JUDGED), { ...judgement, checkId: "tone", satisfied: false });

    // Assess
    expect(satisfiedCheckIds(change.record)).toEqual([]);
    expect(change.events.map((event) => event.type)).toEqual(["judgement.recorded"]);
  });

  it.each([
    ["a check verified by an artifact", "report", "verified by artifact, not model_judge"],
    ["an unknown check", "nope", "no success check 'nope'"],
  ])("refuses %s", (_label, checkId, message) => {
    // Act
    const attempt = () => recordJudgement(buildGoal(), { ...judgement, checkId, satisfied: true });

    // Assess
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(message);
  });
});
