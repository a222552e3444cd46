import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type E2eStack, followGoal, PROJECT_DIR, startE2eStack } from "./local-stack-harness";

function exampleGoal(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "goals", `${name}.json`), "utf8"));
}

/** A goal whose plan starts by reading a changelog the workspace does not have. */
function changelogGoal(fixture: string, limits: Record<string, number>): Record<string, unknown> {
  return {
    objective:
      "Write release notes for goal-loops 2.0 to RELEASE-NOTES.md, from the changelog if there is one.",
    successChecks: [
      {
        id: "notes",
        description: "RELEASE-NOTES.md names version 2.0",
        verify: { kind: "artifact", path: "RELEASE-NOTES.md", contains: "2.0" },
      },
    ],
    tools: ["workspace_read", "workspace_write", "workspace_list"],
    limits,
    pattern: "plan_execute",
    models: { default: `scripted:${fixture}` },
  };
}

describe("Plan-and-Execute end to end on the local stack (HTTP API, cdk.out bundles)", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    // A one-second replan cooldown keeps the storm test short; the Wait state still runs.
    e2e = await startE2eStack({ environment: { REPLAN_COOLDOWN_SECONDS: "1" } });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  /** The goal's model requests as [role, call, attempt], oldest first. */
  function modelCalls(goalId: string): [string, number, number][] {
    return e2e.stack.bedrock
      .calls()
      .filter((record) => record.goalId === goalId)
      .map((record) => [record.role, record.call, record.attempt]);
  }

  it("plans, executes each step and completes with evidence for every check", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(exampleGoal("publish-release-notes"));
    const { final } = await followGoal(e2e.client, accepted.goalId);
    const events = await allEvents(e2e.client, accepted.goalId);

    // Assess
    expect(accepted).toMatchObject({ status: "running", pattern: "plan_execute", runId: "r1" });
    expect(final.status).toBe("completed");
    expect(final.satisfiedChecks).toEqual(["outline", "notes"]);
    expect(final.lastEvidence).toMatchObject({
      kind: "artifact",
      path: "RELEASE-NOTES.md",
      strength: "strong",
    });
    expect(final.usage.modelCalls).toBe(3);
    expect(events.find((event) => event.type === "plan.created")).toMatchObject({
      version: 1,
      steps: ["outline", "notes"],
    });
    expect(
      events
        .filter((event) => event.type === "plan.step.observed")
        .map((event) => [event.stepId, event.outcome]),
    ).toEqual([
      ["outline", "success"],
      ["notes", "success"],
    ]);
    // Each call paid once, the plan by the heavy tier's role and each step by the fast one's.
    expect(modelCalls(accepted.goalId)).toEqual([
      ["plan", 0, 1],
      ["execute", 0, 1],
      ["execute", 1, 1],
    ]);
  });

  it("retries a failed step, repairs it locally (strategy repair recorded) and completes", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(changelogGoal("plan-repair", { maxReplans: 2 }));
    const { final } = await followGoal(e2e.client, accepted.goalId);
    const events = await allEvents(e2e.client, accepted.goalId);

    // Assess
    expect(final.status).toBe("completed");
    expect(final.satisfiedChecks).toEqual(["notes"]);
    const observed = events.filter((event) => event.type === "plan.step.observed");
    expect(observed.map((event) => [event.stepId, event.outcome, event.errorName])).toEqual([
      ["read-changelog", "recoverable_failure", "FileNotFound"],
      ["read-changelog", "recoverable_failure", "FileNotFound"],
      ["notes-from-objective", "success", null],
    ]);
    expect(events.filter((event) => event.type === "plan.revised")).toEqual([
      expect.objectContaining({
        strategy: "repair",
        trigger: "failed_step",
        stepIds: ["read-changelog"],
        replaced: ["read-changelog", "notes"],
      }),
    ]);
    expect(events.filter((event) => event.type === "replan.requested")).toHaveLength(1);
  });

  it("stops repeated failures at the replan limit: the goal waits for a human decision", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(
      changelogGoal("plan-replan-limit", { maxReplans: 2, maxNoProgressCycles: 10 }),
    );
    const { final } = await followGoal(e2e.client, accepted.goalId);
    const events = await allEvents(e2e.client, accepted.goalId);

    // Assess
    expect(final.status).toBe("waiting");
    expect(final.waitingFor).toMatchObject({
      kind: "decision",
      reason: expect.stringContaining("maxReplans"),
    });
    expect(final.stopReason).toMatchObject({ kind: "limit", detail: "maxReplans" });
    expect(events.filter((event) => event.type === "limit.reached")).toEqual([
      expect.objectContaining({ limit: "maxReplans" }),
    ]);
    expect(events.filter((event) => event.type === "replan.requested")).toHaveLength(3);
    // The second replan followed one without any successful step: it cooled down first.
    expect(events.filter((event) => event.type === "replan.cooldown")).toEqual([
      expect.objectContaining({ cooldownSeconds: 1 }),
      expect.objectContaining({ cooldownSeconds: 1 }),
    ]);
    expect(modelCalls(accepted.goalId).filter(([role]) => role === "plan")).toEqual([
      ["plan", 0, 1],
      ["plan", 1, 1],
      ["plan", 2, 1],
    ]);
    const pending = await e2e.client.listApprovals("pending");
    expect(pending).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ goalId: accepted.goalId, approvalId: final.waitingFor?.approvalId }),
      ]),
    );
  });

  it("never retries an unrecoverable step: a human decides, and an approval replans around it", async () => {
    // Prepare
    const spec = {
      ...changelogGoal("plan-decision", { maxReplans: 2 }),
      tools: ["http_request", "workspace_write"],
    };
    const accepted = await e2e.client.submitGoal(spec);
    const { final: waiting } = await followGoal(e2e.client, accepted.goalId);
    const approvalId = waiting.waitingFor?.approvalId ?? "";
    const [approval] = (await e2e.client.listApprovals("pending")).filter(
      (item) => item.approvalId === approvalId,
    );

    // Act
    await e2e.client.decideApproval(approvalId, "approve", "skip the wiki, write from the objective");
    await e2e.stack.events.idle();
    const deadline = Date.now() + 30_000;
    while ((await e2e.client.getGoal(accepted.goalId)).waitingFor?.approvalId === approvalId) {
      if (Date.now() > deadline) throw new Error("the decision did not wake the goal");
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
    const { final } = await followGoal(e2e.client, accepted.goalId);
    const events = await allEvents(e2e.client, accepted.goalId);

    // Assess
    expect(waiting).toMatchObject({ status: "waiting", waitingFor: { kind: "decision" } });
    expect(approval).toMatchObject({
      action: { kind: "decision", summary: expect.stringContaining("HttpRequestRefused") },
    });
    expect(final.status).toBe("completed");
    expect(modelCalls(accepted.goalId).filter(([role]) => role === "execute")).toHaveLength(2);
    expect(events.filter((event) => event.type === "plan.revised")).toEqual([
      expect.objectContaining({
        strategy: "replace_subplan",
        trigger: "decision_approved",
        stepIds: ["fetch-changelog"],
      }),
    ]);
  });
});
