import { describe, expect, it } from "vitest";
import { type GoalSpecInput, parseGoalSpec } from "../../../lambdas/core/goal/goal-spec";
import { selectPattern } from "../../../lambdas/core/intake/pattern-selector";
import { specInput } from "../goal/support";

const check = (id: string) => ({ id, description: id, verify: { kind: "approval" as const, prompt: "ok?" } });
const FIVE_CHECKS = ["a", "b", "c", "d", "e"].map(check);

function select(overrides: Partial<GoalSpecInput>) {
  return selectPattern(parseGoalSpec(specInput(overrides)));
}

describe("selectPattern", () => {
  it("honours an explicitly requested pattern over every hint", () => {
    // Act
    const choice = select({ pattern: "reflexion", hints: { procedure: true, exploratory: true } });

    // Assess
    expect(choice).toEqual({ pattern: "reflexion", reason: "requested", needsModel: false });
  });

  it.each<[string, Partial<GoalSpecInput>, string, string]>([
    ["a known procedure (true)", { hints: { procedure: true } }, "plan_execute", "known procedure"],
    [
      "a known procedure (steps)",
      { hints: { procedure: ["build", "test"] } },
      "plan_execute",
      "known procedure",
    ],
    ["an exploratory goal", { hints: { exploratory: true } }, "react", "exploratory"],
    ["a quality-critical goal", { hints: { qualityCritical: true } }, "reflexion", "quality-critical"],
    [
      "five success checks",
      { successChecks: FIVE_CHECKS, hints: { exploratory: false } },
      "plan_execute",
      "complex",
    ],
    ["three scope entries", { scope: ["api", "cli", "docs"], hints: {} }, "plan_execute", "complex"],
    [
      "hints that are all false",
      { hints: { exploratory: false, qualityCritical: false } },
      "react",
      "default",
    ],
  ])("auto: %s", (_label, overrides, pattern, reason) => {
    // Act
    const choice = select(overrides);

    // Assess
    expect(choice.pattern).toBe(pattern);
    expect(choice.reason).toContain(reason);
    expect(choice.needsModel).toBe(false);
  });

  it("applies the rules in order: procedure before exploratory before quality-critical before complex", () => {
    // Act
    const all = select({
      successChecks: FIVE_CHECKS,
      hints: { procedure: true, exploratory: true, qualityCritical: true },
    });
    const noProcedure = select({
      successChecks: FIVE_CHECKS,
      hints: { exploratory: true, qualityCritical: true },
    });
    const qualityAndComplex = select({ successChecks: FIVE_CHECKS, hints: { qualityCritical: true } });

    // Assess
    expect(all.reason).toBe("known procedure");
    expect(noProcedure.reason).toBe("exploratory");
    expect(qualityAndComplex.reason).toBe("quality-critical");
  });

  it("asks the select role when there are no hints at all, with react as the fallback", () => {
    // Act
    const choice = select({});

    // Assess
    expect(choice).toMatchObject({ pattern: "react", needsModel: true });
  });

  it("treats a complex goal without hints as complex, not as one for the model", () => {
    // Act
    const choice = select({ successChecks: FIVE_CHECKS });

    // Assess
    expect(choice).toMatchObject({ pattern: "plan_execute", needsModel: false });
  });
});
