import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentAttribute, documentOf } from "../../lambdas/adapters/dynamodb/dynamodb-items";
import { stepKey } from "../../lambdas/adapters/dynamodb/goal-table-keys";
import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import type { StepRecord } from "../../lambdas/core/ports/step-log";
import { GoalLoopsApiError } from "../../lib/client/index";
import { localStoreClient, payloadSettingsOf } from "../../lib/local/storage/local-store-client";
import { PLAN_GATE, REACT_SIX } from "./fork-goals";
import { allEvents, type E2eStack, followGoal, PROJECT_DIR } from "./local-stack-harness";
import { runCli } from "./run-cli";
import { sharedE2eStack } from "./shared-e2e-stack";

function exampleGoal(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "goals", `${name}.json`), "utf8"));
}

/** `usage` without the cost: the token and call counts the fixtures fix exactly. */
function counts(
  usage: Pick<GoalSnapshot["usage"], "inputTokens" | "outputTokens" | "modelCalls"> | undefined,
) {
  return (
    usage && {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      modelCalls: usage.modelCalls,
    }
  );
}

describe("Rerun from any step: fork and replay on the local stack", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  /** The model calls the local Bedrock endpoint received for one goal, as `role call` strings. */
  function callsOf(goalId: string): string[] {
    return e2e.stack.bedrock
      .calls()
      .filter((call) => call.goalId === goalId)
      .map((call) => `${call.role} ${call.call}`);
  }

  /** Polls a goal until `done` holds (a deadline, no sleep as synchronisation of what is asserted). */
  async function until(goalId: string, done: (snapshot: GoalSnapshot) => boolean): Promise<GoalSnapshot> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const snapshot = await e2e.client.getGoal(goalId);
      if (done(snapshot)) return snapshot;
      if (Date.now() > deadline) throw new Error(`goal ${goalId} is still ${snapshot.status}`);
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
  }

  it("forks a 6-iteration ReAct goal at step 3 with a revision: only the calls after step 3 are made and billed", async () => {
    // Prepare: the source runs its six passes to the end.
    const source = await e2e.client.submitGoal(REACT_SIX);
    const { final: done } = await followGoal(e2e.client, source.goalId);
    expect(done).toMatchObject({ status: "completed", steps: 6 });
    const sourceSteps = await e2e.client.steps(source.goalId);

    // Act
    const fork = await e2e.client.fork(source.goalId, {
      atStep: 3,
      revision: { type: "add_constraint", content: "Keep the report under 100 words." },
    });
    const { final } = await followGoal(e2e.client, fork.goalId);

    // Assess: the fork completes on the source's passes 4 to 6, under the revised contract.
    expect(fork.forkedFrom).toEqual({ goalId: source.goalId, step: 3 });
    expect(final).toMatchObject({ status: "completed", steps: 6, revision: 2 });
    expect(final.forkedFrom).toEqual({ goalId: source.goalId, step: 3 });
    // Its first reason call is the source's 4th position: nothing for steps 1 to 3 reached the model.
    expect(callsOf(fork.goalId)).toEqual(["reconcile 0", "reason 3", "reason 4", "reason 5"]);
    // Its workspace at the start is the source's after step 3.
    const forkSteps = await e2e.client.steps(fork.goalId);
    const third = (items: typeof forkSteps.items) => items.find((item) => item.step === 3);
    expect(third(forkSteps.items)?.workspace?.sha256).toBe(third(sourceSteps.items)?.workspace?.sha256);
    expect(forkSteps.items.map((item) => item.inherited)).toEqual([true, true, true, false, false, false]);
    expect(forkSteps.items.map((item) => item.checkpoint?.call)).toEqual([0, 1, 2, 3, 4, 5]);
    // Inherited: the source's reason calls 0-2; billed: the reconcile call and reason calls 3-5.
    expect(counts(final.usage.inherited)).toEqual({
      inputTokens: 1001 + 1002 + 1003,
      outputTokens: 36,
      modelCalls: 3,
    });
    expect(counts(final.usage)).toEqual({
      inputTokens: 501 + 1004 + 1005 + 1006,
      outputTokens: 21 + 45,
      modelCalls: 4,
    });
    expect(counts(final.usageByRole.reason)).toEqual({
      inputTokens: 1004 + 1005 + 1006,
      outputTokens: 45,
      modelCalls: 3,
    });
    const types = (await allEvents(e2e.client, fork.goalId)).map((event) => event.type);
    expect(types.slice(0, 3)).toEqual(["goal.created", "goal.forked", "revision.queued"]);

    // Replays: the source's and the fork's records agree with their checkpoints.
    await expect(e2e.client.replay(source.goalId)).resolves.toMatchObject({ agrees: true, toStep: 6 });
    await expect(e2e.client.replay(fork.goalId)).resolves.toMatchObject({ agrees: true, toStep: 6 });

    // A record edited by hand: step 4's turn says something its checkpoint never said.
    const { model, endpoints } = e2e.stack;
    const client = localStoreClient(
      { dynamodb: endpoints.dynamodb, s3: endpoints.s3 },
      payloadSettingsOf(model),
    );
    const tableName = model.tables[0]?.tableName ?? "";
    const stored = await client.send(
      new GetCommand({ TableName: tableName, Key: stepKey(source.goalId, 4) }),
    );
    // The step record as its item holds it (encoded from record schema 3), edited and written back so.
    const record = structuredClone(documentOf(stored.Item?.record, "step record")) as StepRecord;
    const said = record.turn.content.find((block) => "text" in block);
    if (said === undefined || !("text" in said)) throw new Error("step 4 said nothing");
    said.text = "Pass 4, as someone would rather remember it.";
    const edited = { ...stored.Item, record: documentAttribute(record) };
    await client.send(new PutCommand({ TableName: tableName, Item: edited }));
    const replay = await e2e.client.replay(source.goalId);
    expect(replay).toMatchObject({ agrees: false, firstDisagreement: { step: 4, field: "turn" } });
    expect(replay.steps.map((step) => step.agrees)).toEqual([true, true, true, false]);
  }, 120_000);

  it("lists, forks and replays from the CLI: goal-loops steps, fork --at N --revise --model, replay", async () => {
    // Prepare
    const source = await e2e.client.submitGoal(REACT_SIX);
    await followGoal(e2e.client, source.goalId);
    const port = new URL(e2e.stack.apiUrl).port;

    // Act
    const steps = await runCli(["steps", source.goalId, "--port", port]);
    const fork = await runCli([
      "fork",
      source.goalId,
      "--at",
      "5",
      "--revise",
      "Say FINAL in capitals.",
      "--type",
      "refinement",
      "--model",
      "reason=scripted:fork-react-six",
      "--port",
      port,
    ]);
    const forkId = /goal (g-[0-9a-z]{26})/.exec(fork.stdout)?.[1] ?? "";
    const { final } = await followGoal(e2e.client, forkId);
    const replay = await runCli(["replay", forkId, "--port", port]);
    const badStep = await runCli(["fork", source.goalId, "--at", "9", "--port", port]);

    // Assess
    expect(steps.code).toBe(0);
    expect(steps.stdout).toMatch(/ {2}1 {2}iteration 1: workspace_write/);
    expect(steps.stdout.trim().split("\n")).toHaveLength(6);
    expect(fork.code).toBe(0);
    expect(final).toMatchObject({
      status: "completed",
      steps: 6,
      forkedFrom: { goalId: source.goalId, step: 5 },
    });
    expect(callsOf(forkId)).toEqual(["reconcile 0", "reason 5"]);
    expect(replay).toMatchObject({ code: 0, stdout: expect.stringMatching(/steps 1-6 .* agree/) });
    expect(badStep.code).toBe(1);
    expect(badStep.stderr).toMatch(/400 ValidationError.*step 9 does not exist/);
  }, 120_000);

  it("refuses a fork at a step that does not exist, naming atStep, and makes no goal", async () => {
    // Prepare
    const source = await e2e.client.submitGoal(REACT_SIX);
    await followGoal(e2e.client, source.goalId);

    // Act
    const refused = await e2e.client.fork(source.goalId, { atStep: 7 }).catch((error: unknown) => error);

    // Assess
    expect(refused).toBeInstanceOf(GoalLoopsApiError);
    expect(refused).toMatchObject({
      status: 400,
      body: {
        code: "ValidationError",
        issues: [{ path: "atStep", message: expect.stringMatching(/step 7 does not exist/) }],
      },
    });
  }, 120_000);

  it("forks a Plan-and-Execute goal before its rejected gated step with decisions approve: notify is delivered once, by the fork", async () => {
    // Prepare: the source writes the notes, asks to notify, and a human rejects it.
    const source = await e2e.client.submitGoal(PLAN_GATE);
    const waiting = await followGoal(e2e.client, source.goalId);
    expect(waiting.final).toMatchObject({ status: "waiting", steps: 1, waitingFor: { kind: "approval" } });
    const approvalId = waiting.final.waitingFor?.approvalId ?? "";
    await e2e.client.decideApproval(approvalId, "reject", "not yet");
    await e2e.stack.events.idle();
    const rejected = await until(
      source.goalId,
      (snapshot) => snapshot.steps === 2 && snapshot.status !== "running",
    );
    if (rejected.status !== "cancelled") await e2e.client.cancel(source.goalId, "forked instead");

    // Act
    const fork = await e2e.client.fork(source.goalId, {
      atStep: 1,
      decisions: [{ approvalId, decision: "approve", comment: "ops may know now" }],
    });
    // The fork parks on its own approval for a moment: its request decided it in advance.
    const final = await until(
      fork.goalId,
      (snapshot) => snapshot.status !== "running" && snapshot.status !== "waiting",
    );

    // Assess
    expect(final).toMatchObject({
      status: "completed",
      steps: 2,
      forkedFrom: { goalId: source.goalId, step: 1 },
    });
    expect(final.satisfiedChecks.sort()).toEqual(["notes", "ops-told"]);
    const notifies = (await e2e.stack.readOutbox()).filter(
      (entry) => (entry.goalId === source.goalId || entry.goalId === fork.goalId) && entry.channel === "ops",
    );
    expect(notifies.map((entry) => entry.goalId)).toEqual([fork.goalId]);
    // The fork's execute call is the source's second one, and its plan was inherited, not made again.
    expect(callsOf(fork.goalId)).toEqual(["execute 1"]);
    const decided = (await allEvents(e2e.client, fork.goalId)).find(
      (event) => event.type === "approval.decided",
    );
    expect(decided).toMatchObject({ decision: "approve" });
    await expect(e2e.client.replay(source.goalId)).resolves.toMatchObject({ agrees: true, toStep: 2 });
  }, 120_000);

  it("forks a Reflexion goal at attempt 2 with another model for attempt", async () => {
    // Prepare: the example fails twice, draws two lessons, and passes on its third attempt.
    const source = await e2e.client.submitGoal(exampleGoal("write-upgrade-notes"));
    const { final: done } = await followGoal(e2e.client, source.goalId);
    expect(done).toMatchObject({ status: "completed", steps: 3 });

    // Act
    const fork = await e2e.client.fork(source.goalId, {
      atStep: 2,
      models: { attempt: "scripted:fork-reflexion-other" },
    });
    const { final } = await followGoal(e2e.client, fork.goalId);

    // Assess: the lesson of attempt 2, then the third attempt by the other model.
    expect(final).toMatchObject({ status: "completed", steps: 3 });
    expect(callsOf(fork.goalId)).toEqual(["reflect 1", "attempt 2", "evaluate 2"]);
    const attempt = e2e.stack.bedrock
      .calls()
      .find((call) => call.goalId === fork.goalId && call.role === "attempt");
    expect(attempt?.modelId).toBe("scripted:fork-reflexion-other");
    expect(counts(final.usageByRole.attempt)).toEqual({ inputTokens: 1777, outputTokens: 99, modelCalls: 1 });
    // Inherited: attempts 1 and 2, their evaluations and the first lesson; billed: the rest.
    expect(counts(final.usage.inherited)).toEqual({
      inputTokens: 1380 + 620 + 910 + 1460 + 640,
      outputTokens: 72 + 24 + 41 + 64 + 28,
      modelCalls: 5,
    });
    expect(counts(final.usage)).toEqual({
      inputTokens: 980 + 1777 + 700,
      outputTokens: 47 + 99 + 22,
      modelCalls: 3,
    });
    await expect(e2e.client.replay(source.goalId)).resolves.toMatchObject({ agrees: true, toStep: 3 });
    await expect(e2e.client.replay(fork.goalId)).resolves.toMatchObject({ agrees: true, toStep: 3 });
  }, 120_000);
});
