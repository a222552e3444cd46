import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../../../lambdas/core/goal/canonical-json";
import type { StepResult } from "../../../../lambdas/core/loop/step-result";
import { REASON_INSTRUCTIONS } from "../../../../lambdas/core/patterns/react/reason-prompt";
import { verifyAndReason } from "../../../../lambdas/core/patterns/react/verify-and-reason";
import {
  calls,
  calmHaikuJudgedSpec,
  conversationProblems,
  createGoal,
  diesAtCommit,
  type GoalTable,
  lastUserText,
  MODEL_ID,
  ReactLoopDriver,
  reactSpec,
  ScriptedModel,
  SETTINGS,
  says,
  startGoalTable,
  writes,
} from "../../loop/support";

const HAIKU = "autumn moonlight\na worm digs silently\ninto the chestnut";

describe("ReAct loop steps", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  it("completes a goal once a workspace_write leaves the artifact the check asks for", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", HAIKU)] });
    const loop = new ReactLoopDriver(table, model);

    // Act
    const answers = await loop.run(goal.goalId);

    // Assess
    expect(answers.map((answer) => answer.next)).toEqual(["verify", "verify", "completed"]);
    const done = await loop.goal(goal.goalId);
    expect(done.status).toBe("completed");
    expect(done.evidence).toEqual([
      expect.objectContaining({
        checkId: "haiku",
        kind: "artifact",
        path: "out/haiku.md",
        sha256: sha256Hex(HAIKU),
      }),
    ]);
    expect(done.steps).toBe(1);
    expect(done.usage.modelCalls).toBe(1);
    const types = (await loop.events(goal.goalId)).map((event) => event.type);
    expect(types).toEqual(
      expect.arrayContaining([
        "run.started",
        "model.usage",
        "model.turn",
        "tool.called",
        "evidence.recorded",
        "goal.completed",
      ]),
    );
    expect(types).not.toContain("tool.error");
  });

  it("sends the reason call the goal prefix, the granted tools and a conversation that starts with the user", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("notes.md", "draft"), writes("out/haiku.md", HAIKU)] });
    const loop = new ReactLoopDriver(table, model);

    // Act
    await loop.run(goal.goalId);

    // Assess
    const [first, second] = model.requestsFor("reason");
    // A fixture model takes no cache point (test/unit/models/context covers the models that cache).
    expect(first?.system).toEqual([
      { text: REASON_INSTRUCTIONS },
      { text: expect.stringContaining("Objective: Write a haiku about autumn") },
    ]);
    expect(first?.tools?.map((tool) => tool.name).sort()).toEqual([
      "workspace_list",
      "workspace_read",
      "workspace_write",
    ]);
    expect(first?.modelId).toBe(MODEL_ID);
    expect(first?.call).toBe(0);
    expect(first?.messages).toHaveLength(1);
    expect(lastUserText(first)).toContain("Unsatisfied checks: haiku");
    expect(second?.call).toBe(1);
    expect(conversationProblems(second?.messages ?? [])).toEqual([]);
    expect(lastUserText(second)).toContain("Steps used: 1 of 25 (24 left)");
  });

  it("pauses a goal whose model keeps claiming it is done without evidence, after three cycles", async () => {
    // Prepare
    const goal = await createGoal(table);
    const claim = says("Done! The haiku is written.");
    const model = new ScriptedModel({ reason: [claim, claim, claim] });
    const loop = new ReactLoopDriver(table, model);

    // Act
    const answers = await loop.run(goal.goalId);

    // Assess
    expect(answers.at(-1)?.next).toBe("paused");
    const paused = await loop.goal(goal.goalId);
    expect(paused.status).toBe("paused");
    expect(paused.stopReason).toMatchObject({ kind: "no_progress", detail: "maxNoProgressCycles" });
    expect(paused.noProgressCycles).toBe(3);
    expect(paused.evidence).toEqual([]);
    const noProgress = (await loop.events(goal.goalId)).filter((event) => event.type === "no_progress");
    expect(noProgress).toHaveLength(3);
    expect(noProgress.every((event) => event.modelClaimedDone === true)).toBe(true);
    expect(model.requestsFor("reason")).toHaveLength(3);
  });

  it("makes one model call and counts its usage once when VerifyAndReason is retried for the same iteration", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", HAIKU)] });
    const loop = new ReactLoopDriver(table, model);
    const loaded = await loop.load(goal.goalId);

    // Act
    const first = await loop.verifyAndReason(loaded);
    const eventsAfterFirst = await loop.events(goal.goalId);
    const retried = await loop.verifyAndReason(loaded);

    // Assess
    const record = await loop.goal(goal.goalId);
    expect(retried).toEqual(first);
    // No tool call needed an approval: it acted too, and the retry did not act again.
    expect(first).toMatchObject({ iteration: 1, next: "verify" });
    expect(record.steps).toBe(0);
    expect(model.requests).toHaveLength(1);
    expect(record.usage.modelCalls).toBe(1);
    expect(record.usage.inputTokens).toBe(100);
    expect(record.usageByRole.reason?.modelCalls).toBe(1);
    expect(await loop.events(goal.goalId)).toEqual(eventsAfterFirst);
  });

  it("answers a stale position with the iteration after the last one that acted, doing nothing", async () => {
    // Prepare: two iterations reasoned and acted
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("notes.md", "draft"), writes("notes.md", "more")] });
    const loop = new ReactLoopDriver(table, model);
    const loaded = await loop.load(goal.goalId);
    const second = await loop.verifyAndReason(await loop.verifyAndReason(loaded));
    const events = await loop.events(goal.goalId);

    // Act: a delivery of the first position, long after
    const stale = await loop.verifyAndReason(loaded);

    // Assess
    expect(second).toMatchObject({ iteration: 2, next: "verify" });
    expect(stale).toEqual(second);
    expect(model.requests).toHaveLength(2);
    expect(await loop.events(goal.goalId)).toEqual(events);
  });

  it("acts before it verifies when a retry finds the turn reasoned and its step logged but not committed", async () => {
    // Prepare: the invocation reasons, commits, runs the write, logs the step, then dies at Act's commit.
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", HAIKU)] });
    const loop = new ReactLoopDriver(table, model);
    const loaded = await loop.load(goal.goalId);
    await expect(
      verifyAndReason(loop.ports(diesAtCommit(table.adapters.goals, 2)), SETTINGS, loaded),
    ).rejects.toThrow("died at commit 2");

    // Act: the state machine's Retry, then the next iteration
    const retried = await loop.verifyAndReason(loaded);
    const afterRetry = await loop.goal(goal.goalId);
    const next = await loop.verifyAndReason(retried);

    // Assess: the retry reused the logged step and committed it as acted, without counting it yet
    expect(retried).toMatchObject({ iteration: 1, next: "verify" });
    expect(afterRetry.steps).toBe(0);
    expect(afterRetry.loop).toMatchObject({ iteration: 0, phase: "acted" });
    expect(next.next).toBe("completed");
    expect(model.requests).toHaveLength(1);
    const file = await table.adapters.workspace.readFile(goal.goalId, "out/haiku.md");
    expect(file?.version).toBe(1);
    const types = (await loop.events(goal.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "model.turn")).toHaveLength(1);
  });

  it("reads back for verify only the files a check needs, and still proves the checked one", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({
      reason: [writes("notes/draft.md", "first thoughts"), writes("out/haiku.md", HAIKU)],
    });
    const loop = new ReactLoopDriver(table, model);
    const { workspace } = table.adapters;
    const verifyReads = async (position: StepResult) => {
      const read = vi.spyOn(workspace, "readFile");
      try {
        return {
          answer: await loop.verifyAndReason(position),
          paths: read.mock.calls.map(([, path]) => path),
        };
      } finally {
        read.mockRestore();
      }
    };
    // Reasons the draft and acts on it.
    const drafted = await loop.verifyAndReason(await loop.load(goal.goalId));

    // Act
    const afterDraft = await verifyReads(drafted);
    const afterHaiku = await verifyReads(afterDraft.answer);

    // Assess: the draft is never read back (no check names it); the haiku only by the verify that
    // completes the goal (acting on the haiku write, the step before, reads its own file to version it).
    expect([...afterDraft.paths, ...afterHaiku.paths]).not.toContain("notes/draft.md");
    expect(afterHaiku.paths).toEqual(["out/haiku.md"]);
    expect(afterHaiku.answer.next).toBe("completed");
  });

  it("runs the tools once and appends the act events once when Act runs for an iteration that acted", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reason: [writes("out/haiku.md", HAIKU)] });
    const loop = new ReactLoopDriver(table, model);
    const loaded = await loop.load(goal.goalId);

    // Act
    const first = await loop.verifyAndReason(loaded);
    const eventsAfterFirst = await loop.events(goal.goalId);
    const retried = await loop.act({ ...loaded, next: "act" });

    // Assess
    expect(retried).toEqual(first);
    expect(first).toMatchObject({ next: "verify", iteration: 1 });
    expect(await loop.events(goal.goalId)).toEqual(eventsAfterFirst);
    const file = await table.adapters.workspace.readFile(goal.goalId, "out/haiku.md");
    expect(file?.version).toBe(1);
    expect(await table.adapters.stepLog.listRecentSteps(goal.goalId, 10)).toHaveLength(1);
  });

  it("sends a bad tool call back as a tool error and goes on with the loop", async () => {
    // Prepare
    const goal = await createGoal(table);
    const bad = calls("delete_everything", { path: "/" });
    const model = new ScriptedModel({ reason: [bad, writes("out/haiku.md", HAIKU)] });
    const loop = new ReactLoopDriver(table, model);

    // Act
    const answers = await loop.run(goal.goalId);

    // Assess
    expect(answers.at(-1)?.next).toBe("completed");
    const toolErrors = (await loop.events(goal.goalId)).filter((event) => event.type === "tool.error");
    expect(toolErrors).toEqual([
      expect.objectContaining({
        name: "delete_everything",
        errorName: "UnknownTool",
        message: expect.any(String),
      }),
    ]);
    const second = model.requestsFor("reason")[1];
    const badId = bad.content.flatMap((block) => ("toolUse" in block ? [block.toolUse.toolUseId] : []))[0];
    const answered = second?.messages
      .flatMap((message) => message.content)
      .flatMap((block) => ("toolResult" in block ? [block.toolResult] : []));
    expect(answered).toEqual([expect.objectContaining({ toolUseId: badId, status: "error" })]);
    expect(conversationProblems(second?.messages ?? [])).toEqual([]);
  });

  it("treats every call of a turn cut off by max_tokens as an error", async () => {
    // Prepare
    const goal = await createGoal(table);
    const cut = { ...writes("out/haiku.md", HAIKU), stopReason: "max_tokens" as const };
    const model = new ScriptedModel({ reason: [cut, writes("out/haiku.md", HAIKU)] });
    const loop = new ReactLoopDriver(table, model);

    // Act
    await loop.verifyAndReason(await loop.load(goal.goalId));

    // Assess
    const [step] = await table.adapters.stepLog.listRecentSteps(goal.goalId, 1);
    expect(step?.toolResults).toEqual([expect.objectContaining({ status: "error" })]);
    expect(await table.adapters.workspace.readFile(goal.goalId, "out/haiku.md")).toBeUndefined();
  });

  it("asks for a limit decision (and calls no model) once maxSteps steps are used", async () => {
    // Prepare
    const goal = await createGoal(table, reactSpec({ limits: { maxSteps: 2 } }));
    const model = new ScriptedModel({ reason: [writes("a.md", "one"), writes("b.md", "two")] });
    const loop = new ReactLoopDriver(table, model);

    // Act
    const answers = await loop.run(goal.goalId);

    // Assess
    expect(answers.at(-1)?.next).toBe("limit_decision");
    const atLimit = await loop.goal(goal.goalId);
    expect(atLimit.status).toBe("running");
    expect(atLimit.steps).toBe(2);
    expect(model.requests).toHaveLength(2);
  });

  it("judges a model_judge check with the judge role and completes on PASS with weak evidence", async () => {
    // Prepare
    const goal = await createGoal(table, calmHaikuJudgedSpec());
    const model = new ScriptedModel({
      reason: [writes("out/haiku.md", HAIKU)],
      judge: [says("PASS - quiet imagery throughout.")],
    });
    const loop = new ReactLoopDriver(table, model);

    // Act
    const answers = await loop.run(goal.goalId);

    // Assess
    expect(answers.at(-1)?.next).toBe("completed");
    const [judgeRequest] = model.requestsFor("judge");
    expect(lastUserText(judgeRequest)).toContain(`File out/haiku.md:\n${HAIKU}`);
    const done = await loop.goal(goal.goalId);
    expect(done.evidence).toEqual([
      expect.objectContaining({ checkId: "tone", kind: "model_judge", strength: "weak" }),
    ]);
    expect(done.usageByRole.judge?.modelCalls).toBe(1);
  });
});
