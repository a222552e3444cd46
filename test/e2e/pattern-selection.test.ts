import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type E2eStack, followGoal, PROJECT_DIR } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

function exampleJson(kind: "goals" | "fixtures", name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PROJECT_DIR, "examples", kind, `${name}.json`), "utf8"));
}

/** An example goal resubmitted with `pattern: "auto"` and the given hints. */
function autoGoal(name: string, hints: Record<string, unknown> | undefined): Record<string, unknown> {
  const { pattern: _requested, ...goal } = exampleJson("goals", name);
  return { ...goal, pattern: "auto", ...(hints === undefined ? {} : { hints }) };
}

describe("pattern: auto on the local stack (HTTP API, cdk.out bundles)", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it.each([
    ["write-release-summary", { exploratory: true }, "react", "exploratory"],
    [
      "publish-release-notes",
      { procedure: ["outline", "write the notes"] },
      "plan_execute",
      "known procedure",
    ],
    ["write-upgrade-notes", { qualityCritical: true }, "reflexion", "quality-critical"],
  ])(
    "runs %s on the pattern its hints pick (%j → %s), says why in goal.created and the snapshot, and completes",
    async (name, hints, pattern, reason) => {
      // Act
      const accepted = await e2e.client.submitGoal(autoGoal(name, hints));
      const { final } = await followGoal(e2e.client, accepted.goalId);
      const events = await allEvents(e2e.client, accepted.goalId);

      // Assess
      expect(accepted.pattern).toBe(pattern);
      expect(final).toMatchObject({ status: "completed", pattern, patternReason: reason });
      expect(events[0]).toMatchObject({
        type: "goal.created",
        requestedPattern: "auto",
        pattern,
        patternReason: reason,
      });
      // Hints decided: no select call was made.
      expect(e2e.stack.bedrock.callCount({ goalId: accepted.goalId, role: "select", call: 0 })).toBe(0);
      // The execution ran on that pattern's own state machine.
      const suffix = pattern.replace("_", "-");
      const executions = e2e.stack.executions
        .list()
        .filter((execution) => execution.name.startsWith(`${accepted.goalId}-`));
      expect(executions.length).toBeGreaterThan(0);
      for (const execution of executions)
        expect(execution.stateMachineArn).toMatch(new RegExp(`-${suffix}$`));
    },
  );

  it("asks the select role once when no hint or rule decides, and runs the pattern it chose", async () => {
    // Prepare: the reflexion example's script, with a select turn in front
    e2e.writeFixture("select-then-reflexion", {
      ...exampleJson("fixtures", "write-upgrade-notes"),
      select: [
        {
          toolUse: {
            name: "choose_pattern",
            input: {
              pattern: "reflexion",
              reason: "The notes must be followable: attempt, evaluate, retry.",
            },
          },
        },
      ],
    });
    const goal = {
      ...autoGoal("write-upgrade-notes", undefined),
      models: { default: "scripted:select-then-reflexion" },
    };

    // Act
    const accepted = await e2e.client.submitGoal(goal);
    const { final } = await followGoal(e2e.client, accepted.goalId);
    const events = await allEvents(e2e.client, accepted.goalId);

    // Assess
    const reason = "chosen by the select role: The notes must be followable: attempt, evaluate, retry.";
    expect(accepted.pattern).toBe("reflexion");
    expect(final).toMatchObject({ status: "completed", pattern: "reflexion", patternReason: reason });
    expect(events[0]).toMatchObject({ type: "goal.created", pattern: "reflexion", patternReason: reason });
    expect(events.find((event) => event.type === "model.usage")).toMatchObject({ role: "select" });
    expect(e2e.stack.bedrock.callCount({ goalId: accepted.goalId, role: "select", call: 0 })).toBe(1);
    expect(final.usage.modelCalls).toBe(9); // the reflexion example's 8 calls and the select call
  });

  it("refuses a GoalSpec naming a model outside the allow-list, naming the role", async () => {
    // Act
    const response = await fetch(`${e2e.stack.apiUrl}/goals`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ...autoGoal("write-release-summary", { exploratory: true }),
        models: { plan: "us.meta.llama-9" },
      }),
    });

    // Assess
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "ValidationError", issues: [expect.objectContaining({ path: "models.plan" })] },
    });
  });
});
