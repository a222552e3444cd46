import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import { checkInvariants } from "../../lambdas/core/goal/invariants";
import type { GoalLoopsClient } from "../../lib/client/index";
import type { LocalOutboxEntry } from "../../lib/local/storage/local-outbox";
import { allEvents } from "./local-stack-harness";
import { type LocalStackProcess, startLocalStackProcess, writeFixtures } from "./local-stack-process";

/**
 * Many goals of the three patterns on `npm start` with a kept state folder; the stack is killed
 * (SIGKILL on its process group) while some wait for approval and others are mid-flight, started
 * again, killed again once it re-attached them, and started a third time. Every goal must end
 * exactly as scripted: each model call paid once, one notify per approval, the same approval
 * throughout. Among them the Plan-and-Execute goal whose notify step two restarts used to re-run.
 */

const SLOW = 800;
const write = (path: string, content: string, latencyMs = 0) => ({
  toolUse: { name: "workspace_write", input: { path, content } },
  ...(latencyMs > 0 ? { latencyMs } : {}),
});
const notify = { toolUse: { name: "notify", input: { channel: "ops", message: "release 5.0 is out" } } };
const planStep = (id: string, tool: string, dependsOn: string[] = []) => ({
  id,
  action: `${id} with ${tool}`,
  tool,
  dependsOn,
  expected: `${id} done`,
  completion: { text: `${id} is done` },
});
const submitPlan = (steps: unknown[], latencyMs = 0) => ({
  toolUse: { name: "submit_plan", input: { steps } },
  ...(latencyMs > 0 ? { latencyMs } : {}),
});
const says = (text: string, latencyMs = 0) => ({ text, ...(latencyMs > 0 ? { latencyMs } : {}) });

const FIXTURES = {
  "crash-plan-notify": {
    plan: [
      submitPlan([
        planStep("tell", "notify"),
        planStep("one", "workspace_write", ["tell"]),
        planStep("two", "workspace_write", ["one"]),
        planStep("three", "workspace_write", ["two"]),
      ]),
    ],
    execute: [notify, write("one.md", "one"), write("two.md", "two"), write("three.md", "three")],
  },
  "crash-react-notify": {
    reason: [write("draft.md", "draft"), notify, write("note.md", "the final note")],
  },
  "crash-reflexion-notify": {
    attempt: [
      write("note.md", "5.0 is out."),
      { toolUse: [write("note.md", "5.0 is out: npm install goal-loops@5").toolUse, notify.toolUse] },
    ],
    evaluate: [says("FAIL: no upgrade command."), says("PASS: names npm install.")],
    reflect: [says("Name the upgrade command.")],
  },
  "crash-react-slow": {
    reason: [write("a.md", "a", SLOW), write("b.md", "b", SLOW), write("c.md", "c is done", SLOW)],
  },
  "crash-plan-slow": {
    plan: [
      submitPlan([planStep("one", "workspace_write"), planStep("two", "workspace_write", ["one"])], SLOW),
    ],
    execute: [write("one.md", "one", SLOW), write("two.md", "two", SLOW)],
  },
  "crash-reflexion-slow": {
    attempt: [write("note.md", "5.0 is out.", SLOW), write("note.md", "npm install goal-loops@5", SLOW)],
    evaluate: [says("FAIL: no command.", SLOW), says("PASS: names npm install.", SLOW)],
    reflect: [says("Name the upgrade command.", SLOW)],
  },
};

const TOLD = {
  id: "told",
  description: "ops were told",
  verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
};
const artifact = (id: string, path: string, contains?: string) => ({
  id,
  description: `${path} is written`,
  verify: { kind: "artifact", path, ...(contains === undefined ? {} : { contains }) },
});
const judged = {
  id: "actionable",
  description: "note.md names the upgrade command",
  verify: { kind: "model_judge", rubric: "PASS only if the note names the upgrade command" },
};
const TOOLS = ["workspace_write", "workspace_read", "notify"];

/** Each goal, and the model calls per role its script makes when it runs as written. */
const GOALS = [
  {
    name: "crash-plan-notify",
    pattern: "plan_execute",
    checks: [artifact("three", "three.md"), TOLD],
    calls: { plan: 1, execute: 4 },
    notifies: 1,
  },
  {
    name: "crash-react-notify",
    pattern: "react",
    checks: [artifact("note", "note.md", "final"), TOLD],
    calls: { reason: 3 },
    notifies: 1,
  },
  {
    name: "crash-reflexion-notify",
    pattern: "reflexion",
    checks: [judged, TOLD],
    calls: { attempt: 2, evaluate: 2, reflect: 1 },
    notifies: 1,
  },
  {
    name: "crash-react-slow",
    pattern: "react",
    checks: [artifact("c", "c.md", "done")],
    calls: { reason: 3 },
    notifies: 0,
  },
  {
    name: "crash-plan-slow",
    pattern: "plan_execute",
    checks: [artifact("two", "two.md")],
    calls: { plan: 1, execute: 2 },
    notifies: 0,
  },
  {
    name: "crash-reflexion-slow",
    pattern: "reflexion",
    checks: [judged],
    calls: { attempt: 2, evaluate: 2, reflect: 1 },
    notifies: 0,
  },
] as const;

const WAITS_ON_APPROVAL = GOALS.filter((goal) => goal.notifies > 0);
const ENDED = new Set(["completed", "failed", "terminated", "paused", "cancelled"]);

/**
 * Polls every goal in `goalIds` until `ready` holds for all of them, or throws at the deadline;
 * every snapshot seen must keep the DESIGN §4 invariants.
 */
async function until(
  client: GoalLoopsClient,
  goalIds: readonly string[],
  ready: (snapshot: GoalSnapshot) => boolean,
  what: string,
  deadlineMs = 120_000,
): Promise<GoalSnapshot[]> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const snapshots = await Promise.all(goalIds.map((goalId) => client.getGoal(goalId)));
    for (const snapshot of snapshots) {
      const broken = checkInvariants(snapshot);
      if (broken.length > 0) throw new Error(`${snapshot.goalId} breaks invariants: ${broken.join("; ")}`);
    }
    if (snapshots.every(ready)) return snapshots;
    if (Date.now() > deadline) {
      const states = snapshots.map((s) => `${s.goalId} ${s.status} ${s.runId}`).join(", ");
      throw new Error(`not ${what} after ${deadlineMs} ms: ${states}`);
    }
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
  }
}

/** `GET /_local/outbox`: what notify delivered and the doors sent, every goal's. */
async function localOutbox(apiUrl: string): Promise<LocalOutboxEntry[]> {
  const response = await fetch(`${apiUrl}/_local/outbox`);
  if (!response.ok) throw new Error(`GET /_local/outbox answered ${response.status}`);
  const body = (await response.json()) as { items: LocalOutboxEntry[] };
  return body.items;
}

describe("killing npm start twice while goals of every pattern run and wait", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "goal-loops-crashes-"));
  const stacks: LocalStackProcess[] = [];

  afterAll(async () => {
    // Every process dies even when one reports undescribed answers (kill throws after killing).
    const killed = await Promise.allSettled(stacks.map((stack) => stack.kill()));
    rmSync(stateDir, { recursive: true, force: true });
    const failed = killed.find((outcome) => outcome.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  });

  async function start(): Promise<LocalStackProcess> {
    const stack = await startLocalStackProcess(stateDir);
    stacks.push(stack);
    return stack;
  }

  it("ends every goal exactly as scripted, the Plan-and-Execute notify step among them", async () => {
    // Prepare: six goals; the three that notify wait for their approval, the others are under way
    writeFixtures(stateDir, FIXTURES);
    const first = await start();
    const accepted = new Map<string, string>();
    for (const goal of GOALS) {
      const { goalId } = await first.client.submitGoal({
        objective: `The ${goal.name} goal`,
        pattern: goal.pattern,
        tools: TOOLS,
        successChecks: goal.checks,
        limits: { maxSteps: 20, maxAttempts: 3 },
        models: { default: `scripted:${goal.name}` },
      });
      accepted.set(goal.name, goalId);
    }
    const idOf = (name: string) => accepted.get(name) ?? "";
    const notifying = WAITS_ON_APPROVAL.map((goal) => idOf(goal.name));
    const parked = await until(
      first.client,
      notifying,
      (s) => s.status === "waiting",
      "waiting in the first run",
    );
    const approvals = new Map(parked.map((s) => [s.goalId, s.waitingFor?.approvalId]));

    // Act: killed, started, killed again once it re-attached them, started again, then approved
    await first.kill();
    const second = await start();
    const reattached = await until(
      second.client,
      notifying,
      (s) => s.status === "waiting" && s.runId !== "r1",
      "re-attached by the second start",
    );
    await second.kill();
    const third = await start();
    const again = await until(
      third.client,
      notifying,
      (s) => s.status === "waiting" && !reattached.some((r) => r.goalId === s.goalId && r.runId === s.runId),
      "re-attached by the third start",
    );
    for (const goalId of notifying) {
      await third.client.decideApproval(approvals.get(goalId) ?? "", "approve");
    }
    const ended = await until(
      third.client,
      GOALS.map((goal) => idOf(goal.name)),
      (s) => ENDED.has(s.status),
      "ended",
    );
    const finals = new Map(GOALS.map((goal) => [goal.name, ended.find((s) => s.goalId === idOf(goal.name))]));

    // Assess
    for (const snapshot of [...reattached, ...again]) {
      expect(snapshot.waitingFor?.approvalId, `${snapshot.goalId} waits on its first approval`).toBe(
        approvals.get(snapshot.goalId),
      );
    }
    const outbox = await localOutbox(third.apiUrl);
    for (const goal of GOALS) {
      const goalId = idOf(goal.name);
      const final = finals.get(goal.name);
      expect(final?.status, `${goal.name}: ${JSON.stringify(final?.stopReason)}`).toBe("completed");
      const calls = Object.fromEntries(
        Object.entries(final?.usageByRole ?? {}).map(([role, usage]) => [role, usage.modelCalls]),
      );
      expect(calls, `${goal.name} model calls`).toEqual(goal.calls);
      const events = await allEvents(third.client, goalId);
      const count = (type: string) => events.filter((event) => event.type === type).length;
      expect(count("model.usage"), `${goal.name} model.usage events`).toBe(
        Object.values(goal.calls).reduce((sum, n) => sum + n, 0),
      );
      expect(count("approval.requested"), `${goal.name} approvals`).toBe(goal.notifies);
      expect(count("turn.discarded"), `${goal.name} discarded turns`).toBe(0);
      const told = outbox.filter((entry) => entry.goalId === goalId && entry.channel === "ops");
      expect(told, `${goal.name} notify deliveries`).toHaveLength(goal.notifies);
    }
    const planEvents = await allEvents(third.client, idOf("crash-plan-notify"));
    expect(
      planEvents
        .filter((event) => event.type === "plan.step.observed")
        .map((event) => `${String(event.stepId)} ${String(event.outcome)}`),
    ).toEqual(["tell success", "one success", "two success", "three success"]);
    expect(planEvents.filter((event) => event.type === "plan.step.started")).toHaveLength(4);
    expect(planEvents.filter((event) => event.type === "run.reattached")).toHaveLength(2);
    await third.stop();
  }, 600_000);
});
