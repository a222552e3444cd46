import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type E2eStack, followGoal, PROJECT_DIR } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

const EXAMPLE = "write-upgrade-notes";

function exampleGoal(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "goals", `${name}.json`), "utf8"));
}

interface ReflectTurn {
  readonly text: string;
}

/** The lessons the example's fixture has the reflector draw, in order. */
function scriptedLessons(): string[] {
  const fixture: { reflect: ReflectTurn[] } = JSON.parse(
    readFileSync(join(PROJECT_DIR, "examples", "fixtures", `${EXAMPLE}.json`), "utf8"),
  );
  return fixture.reflect.map((turn) => turn.text);
}

/** Every text block of a Converse request (system and messages), as the model read it. */
function promptText(request: unknown): string {
  const texts: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === "object" && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === "text" && typeof value === "string") texts.push(value);
        else walk(value);
      }
    }
  };
  walk(request);
  return texts.join("\n");
}

describe("Reflexion end to end on the local stack (HTTP API, cdk.out bundles)", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("fails twice, stores two lessons, shows both in the third attempt's prompt, then completes with evidence", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(exampleGoal(EXAMPLE));
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess: the goal completed on evidence
    const { goalId } = accepted;
    expect(accepted).toMatchObject({ status: "running", pattern: "reflexion", runId: "r1" });
    expect(final.status).toBe("completed");
    expect(final.satisfiedChecks.sort()).toEqual(["followable", "notes-written"]);
    expect(final.unsatisfiedChecks).toEqual([]);
    expect(final.usage.modelCalls).toBe(8);

    // Assess: two lessons recorded, three attempts started
    const events = await allEvents(e2e.client, goalId);
    const lessons = scriptedLessons();
    const recorded = events.filter((event) => event.type === "lesson.recorded");
    expect(recorded.map((event) => [event.attempt, event.text])).toEqual([
      [1, lessons[0]],
      [2, lessons[1]],
    ]);
    expect(events.filter((event) => event.type === "attempt.started")).toHaveLength(3);
    // Each attempt's new UPGRADING.md re-records the artifact evidence; the evaluator passed once.
    const evidence = events.filter((event) => event.type === "evidence.recorded");
    expect(evidence.filter((event) => event.checkId === "notes-written")).toHaveLength(3);
    expect(evidence.filter((event) => event.checkId === "followable")).toEqual([
      expect.objectContaining({ kind: "model_judge", strength: "weak" }),
    ]);

    // Assess: the third attempt's prompt held both lessons; the first none
    const calls = e2e.stack.bedrock.calls().filter((call) => call.goalId === goalId);
    const attempts = calls.filter((call) => call.role === "attempt").sort((a, b) => a.call - b.call);
    expect(attempts.map((call) => call.call)).toEqual([0, 1, 2]);
    const [first, , third] = attempts.map((call) => promptText(call.request));
    for (const lesson of lessons) {
      expect(first).not.toContain(lesson);
      expect(third).toContain(lesson);
    }

    // Assess: the evaluator and the reflector played their own roles, each call made once
    expect(calls.filter((call) => call.role === "evaluate")).toHaveLength(3);
    expect(calls.filter((call) => call.role === "reflect")).toHaveLength(2);
    expect(calls.filter((call) => call.role === "judge")).toEqual([]);
    expect(calls.every((call) => call.attempt === 1)).toBe(true);
  });
});
