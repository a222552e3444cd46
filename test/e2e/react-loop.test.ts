import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GoalLoopsApiError } from "../../lib/client/index";
import { allEvents, type E2eStack, followGoal, PROJECT_DIR } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

function exampleGoal(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "goals", `${name}.json`), "utf8"));
}

describe("ReAct end to end on the local stack (HTTP API, cdk.out bundles)", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("runs the Lambda code from the cdk.out asset bundles", () => {
    // Assess
    const functions = e2e.stack.model.functions;
    expect(functions.length).toBeGreaterThanOrEqual(6);
    for (const fn of functions) {
      expect(relative(join(PROJECT_DIR, "cdk.out"), fn.assetDir)).toMatch(/^asset\.[0-9a-f]+$/);
    }
  });

  it("completes a goal with artifact evidence", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(exampleGoal("write-release-summary"));
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect(accepted).toMatchObject({ status: "running", pattern: "react", runId: "r1" });
    expect(final.status).toBe("completed");
    expect(final.satisfiedChecks).toEqual(["summary-written"]);
    expect(final.unsatisfiedChecks).toEqual([]);
    expect(final.lastEvidence).toMatchObject({ kind: "artifact", path: "summary.md", strength: "strong" });
    expect(final.usage.modelCalls).toBe(2);
    const events = await allEvents(e2e.client, accepted.goalId);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.some((event) => event.type === "evidence.recorded")).toBe(true);
    // No call needed an approval: VerifyAndReason ran every turn's tools itself, the Act state never ran.
    const [run] = e2e.stack.executions
      .list()
      .filter((execution) => execution.name === `${accepted.goalId}-r1`);
    await run?.done;
    const entered = run?.recentEvents.flatMap((event) =>
      event.type === "StateEntered" ? [event.stateName] : [],
    );
    expect(entered?.filter((state) => state === "VerifyAndReason")).toHaveLength(final.usage.modelCalls + 1);
    expect(entered).not.toContain("Act");
  });

  it("pauses after three cycles in which the model claims success without evidence", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(exampleGoal("claims-done-without-evidence"));
    const { final, seen } = await followGoal(e2e.client, accepted.goalId);

    // Assess (followGoal checked the invariants on every snapshot it saw)
    expect(seen.length).toBeGreaterThan(0);
    expect(final.status).toBe("paused");
    expect(final.noProgressCycles).toBe(3);
    expect(final.satisfiedChecks).toEqual([]);
    expect(final.stopReason).toMatchObject({ kind: "no_progress" });
    const events = await allEvents(e2e.client, accepted.goalId);
    expect(events.filter((event) => event.type === "no_progress")).toHaveLength(3);
    expect(events.some((event) => event.type === "progress")).toBe(false);
  });

  it("records a model failure past the end of the fixtures as failed, naming the role", async () => {
    // Prepare
    const spec = {
      ...exampleGoal("write-release-summary"),
      models: { default: "scripted:exhausts-after-one-turn" },
    };

    // Act
    const accepted = await e2e.client.submitGoal(spec);
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect(final.status).toBe("failed");
    expect(final.stopReason).toMatchObject({ detail: "FixtureExhausted", role: "reason" });
    expect(final.stopReason?.message).toMatch(/reason/);
    expect(final.stopReason?.message).toMatch(/call=1\b/);
  });

  it("delivers a pre-authorized notify to the outbox once, shown by GET /_local/outbox", async () => {
    // Prepare
    const spec = {
      objective: "Tell ops that release 2.0 is out",
      successChecks: [
        {
          id: "ops-told",
          description: "notify succeeded",
          verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
        },
      ],
      tools: ["notify"],
      approval: { preAuthorized: ["notify"] },
      pattern: "react",
      models: { default: "scripted:notify-preauthorized" },
    };

    // Act
    const accepted = await e2e.client.submitGoal(spec);
    const { final } = await followGoal(e2e.client, accepted.goalId);
    const response = await fetch(`${e2e.stack.apiUrl}/_local/outbox`);
    const outbox = (await response.json()) as {
      items: { goalId: string; channel: string; message: unknown }[];
    };

    // Assess
    expect(final.status).toBe("completed");
    expect(final.lastEvidence).toMatchObject({ kind: "tool_result", tool: "notify" });
    expect(response.status).toBe(200);
    expect(outbox.items.filter((item) => item.goalId === accepted.goalId)).toEqual([
      expect.objectContaining({ channel: "ops", message: "release 2.0 is out" }),
    ]);
  });

  it("answers a bad GoalSpec with 400 and the path of every bad field", async () => {
    // Prepare
    const spec = {
      objective: "",
      successChecks: [{ id: "a", description: "d", verify: { kind: "artifact", path: "/etc/passwd" } }],
      limits: { maxSteps: 0 },
      extra: true,
    };

    // Act
    const refusal = await e2e.client.submitGoal(spec).catch((error: unknown) => error);

    // Assess
    expect(refusal).toBeInstanceOf(GoalLoopsApiError);
    const { status, body } = refusal as GoalLoopsApiError;
    expect(status).toBe(400);
    expect(body.code).toBe("ValidationError");
    expect(body.issues?.map((issue) => issue.path).sort()).toEqual(
      ["extra", "limits.maxSteps", "objective", "successChecks.0.verify.path"].sort(),
    );
  });
});
