import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parseGoalSpec } from "../../../lambdas/core/goal/goal-spec";

const GOALS_DIR = join(import.meta.dirname, "..", "..", "..", "examples", "goals");

function goalFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? goalFiles(join(dir, entry.name))
      : entry.name.endsWith(".json")
        ? [join(dir, entry.name)]
        : [],
  );
}

describe("the example goals", () => {
  it.each(goalFiles(GOALS_DIR).map((file) => [relative(GOALS_DIR, file), file]))(
    "%s is a valid GoalSpec",
    (_name, file) => {
      // Act + Assess
      expect(() => parseGoalSpec(JSON.parse(readFileSync(file, "utf8")))).not.toThrow();
    },
  );

  it("for a deployed stack exist, and name no model only the local stack answers (scripted:, local:)", () => {
    // Act
    const deployed = goalFiles(join(GOALS_DIR, "deployed")).map((file) => readFileSync(file, "utf8"));

    // Assess
    expect(deployed.length).toBeGreaterThan(0);
    for (const text of deployed) expect(text).not.toMatch(/"(scripted|local):/);
  });
});
