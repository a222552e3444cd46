import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueRevision, type RevisionInput } from "../../../lambdas/core/goal/revisions";
import { applyQueuedRevisions } from "../../../lambdas/core/loop/revisions/apply-revisions";
import {
  createGoal,
  type GoalTable,
  lastUserText,
  MODEL_ID,
  ReactLoopDriver,
  reactSpec,
  ScriptedModel,
  says,
  startGoalTable,
  steppingClock,
  writes,
} from "./support";

const TWO_CHECKS = reactSpec({
  successChecks: [
    {
      id: "haiku",
      description: "out/haiku.md holds a haiku that mentions autumn",
      verify: { kind: "artifact", path: "out/haiku.md", contains: "autumn" },
    },
    { id: "notes", description: "out/notes.md exists", verify: { kind: "artifact", path: "out/notes.md" } },
  ],
});

const RECONCILED = {
  summary: "The autumn haiku no longer fits; notes stay useful.",
  keep: ["out/notes.md"],
  discard: ["the autumn haiku"],
  add: ["a winter haiku"],
  discardEvidenceFor: ["haiku", "no-such-check"],
  restart: false,
};

/** The checks reconcile proposes for the winter objective (a human confirms them before they count). */
const WINTER_CHECKS = [
  {
    id: "winter-haiku",
    description: "out/haiku.md holds a haiku that mentions snow",
    verify: { kind: "artifact" as const, path: "out/haiku.md", contains: "snow" },
  },
];

describe("applyQueuedRevisions at the step boundary", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  /** Queues a revision the way the resume handler does. */
  async function queue(
    goalId: string,
    input: Partial<RevisionInput> & Pick<RevisionInput, "type">,
    id = "rev-1",
  ) {
    const stored = await table.adapters.goals.getGoal(goalId);
    if (!stored) throw new Error("goal vanished");
    const change = queueRevision(
      stored.record,
      { content: "Write about winter instead", requestedBy: "ana", ...input },
      { revisionId: id, now: new Date("2026-03-01T09:00:30.000Z") },
    );
    await table.adapters.goals.commit(change.record, stored.version, change.events);
  }

  it("applies a redirect without checks at the next VerifyAndReason: old evidence void, proposed checks wait for a human", async () => {
    // Prepare: a verified step wrote the autumn haiku (check satisfied), a second one a draft
    const goal = await createGoal(table, TWO_CHECKS);
    const model = new ScriptedModel({
      reason: [
        writes("out/haiku.md", "autumn leaves fall"),
        writes("out/draft.md", "d"),
        writes("out/notes.md", "n"),
      ],
      reconcile: [
        says(
          `Here you are:\n\`\`\`json\n${JSON.stringify({ ...RECONCILED, proposedChecks: WINTER_CHECKS })}\n\`\`\``,
        ),
      ],
    });
    const loop = new ReactLoopDriver(table, model);
    let acted = await loop.verifyAndReason(await loop.load(goal.goalId));
    acted = await loop.verifyAndReason(acted);
    expect((await loop.goal(goal.goalId)).evidence.map((item) => item.checkId)).toEqual(["haiku"]);
    await queue(goal.goalId, { type: "redirect", reason: "season changed" });

    // Act
    const next = await loop.verifyAndReason(acted);

    // Assess: no model call toward either contract until a human confirms the new one
    expect(next.next).toBe("decision");
    expect(model.requestsFor("reason")).toHaveLength(2);
    const revised = await loop.goal(goal.goalId);
    expect(revised.revision).toBe(2);
    expect(revised.spec.objective).toBe("Write about winter instead");
    expect(revised.spec.successChecks).toEqual(goal.spec.successChecks);
    expect(revised.contractProposal).toMatchObject({
      revision: 2,
      checks: WINTER_CHECKS,
      outcome: "pending",
    });
    expect(revised.inbox).toEqual([]);
    expect(revised.revisionLog).toMatchObject([{ revisionId: "rev-1", revision: 2, requestedBy: "ana" }]);
    expect(revised.evidence.map((item) => item.checkId)).toEqual([]);
    expect(revised.usageByRole.reconcile?.modelCalls).toBe(1);
    const applied = (await loop.events(goal.goalId)).find((event) => event.type === "revision.applied");
    expect(applied).toMatchObject({
      revision: 2,
      revisionType: "redirect",
      reason: "season changed",
      evidenceDiscarded: ["haiku"],
      contract: "awaiting_confirmation",
      proposedChecks: ["winter-haiku"],
      reconcile: { ...RECONCILED, discardEvidenceFor: ["haiku"] },
    });
    const [reconcileRequest] = model.requestsFor("reconcile");
    expect(reconcileRequest).toMatchObject({ role: "reconcile", call: 0, modelId: MODEL_ID });
    expect(lastUserText(reconcileRequest)).toContain("Write about winter instead");
    expect(lastUserText(reconcileRequest)).toContain('Propose\nthe new ones in "proposedChecks"');
  });

  it("pauses a redirect whose reconcile proposed no checks, saying how to go on", async () => {
    // Prepare
    const goal = await createGoal(table, TWO_CHECKS);
    const model = new ScriptedModel({
      reason: [writes("out/haiku.md", "autumn leaves fall"), writes("out/notes.md", "n")],
      reconcile: [says(JSON.stringify(RECONCILED))],
    });
    const loop = new ReactLoopDriver(table, model);
    const acted = await loop.verifyAndReason(await loop.load(goal.goalId));
    await queue(goal.goalId, { type: "pivot" });

    // Act
    const next = await loop.verifyAndReason(acted);

    // Assess
    expect(next.next).toBe("paused");
    const paused = await loop.goal(goal.goalId);
    expect(paused.stopReason).toMatchObject({ kind: "policy", detail: "contract_unconfirmed" });
    expect(paused.stopReason?.message).toContain("send the revision again with successChecks");
    expect(paused.evidence).toEqual([]);
  });

  it("runs a redirect with its own checks on the new contract at once, without the old evidence", async () => {
    // Prepare: the autumn haiku satisfied the old check; the redirect's check has the same id and verify
    const goal = await createGoal(table, TWO_CHECKS);
    const model = new ScriptedModel({
      reason: [
        writes("out/haiku.md", "autumn leaves fall"),
        writes("out/notes.md", "n"),
        writes("out/haiku.md", "autumn again"),
      ],
      reconcile: [says(JSON.stringify(RECONCILED))],
    });
    const loop = new ReactLoopDriver(table, model);
    const acted = await loop.verifyAndReason(await loop.load(goal.goalId));
    const sameHaiku = TWO_CHECKS.successChecks.slice(0, 1);
    await queue(goal.goalId, { type: "redirect", successChecks: sameHaiku });

    // Act
    const next = await loop.verifyAndReason(acted);

    // Assess: nothing carried over; the reason call after it sees the new revision and its decision
    expect(next.next).toBe("verify");
    const revised = await loop.goal(goal.goalId);
    expect(revised.spec.successChecks).toEqual(sameHaiku);
    expect(revised.evidence).toEqual([]);
    expect(revised.contractProposal).toBeUndefined();
    const system = JSON.stringify(model.requestsFor("reason").at(-1)?.system);
    expect(system).toContain("GOAL (revision 2)");
    expect(system).toContain("revision 2 (redirect, by ana): Write about winter instead");
    expect(system).toContain("what it means for the work so far: The autumn haiku no longer fits");
    expect(system).toContain("new work: a winter haiku");
  });

  it("applies the revision with a note and no discards when the reconcile answer is not the JSON asked for", async () => {
    // Prepare
    const goal = await createGoal(table, TWO_CHECKS);
    const model = new ScriptedModel({
      reason: [writes("out/haiku.md", "autumn leaves fall"), writes("out/notes.md", "n")],
      reconcile: [says("I think everything is fine.")],
    });
    const loop = new ReactLoopDriver(table, model);
    const acted = await loop.verifyAndReason(await loop.load(goal.goalId));
    await queue(goal.goalId, { type: "add_constraint", content: "Use at most 12 words" });

    // Act
    await loop.verifyAndReason(acted);

    // Assess
    const revised = await loop.goal(goal.goalId);
    expect(revised.revision).toBe(2);
    expect(revised.spec.constraints).toEqual(["Use at most 12 words"]);
    expect(revised.evidence.map((item) => item.checkId)).toEqual(["haiku"]);
    expect(revised.revisionLog[0]?.reconcile).toMatchObject({
      summary: expect.stringContaining("reconcile answer unusable"),
      discardEvidenceFor: [],
    });
  });

  it("pays for each reconcile once: a retried step reuses the checkpoint and applies nothing twice", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({ reconcile: [says("{}"), says("{}")] });
    const loop = new ReactLoopDriver(table, model);
    await loop.load(goal.goalId);
    await queue(goal.goalId, { type: "inject_context", content: "The reader is five" }, "rev-a");
    await queue(goal.goalId, { type: "refinement", content: "Rhyme if you can" }, "rev-b");
    const stale = await table.adapters.goals.getGoal(goal.goalId);
    if (!stale) throw new Error("goal vanished");
    const ports = { ...table.adapters, model, now: steppingClock() };
    const input = { loaded: stale, runId: "r1", models: { heavyModelId: MODEL_ID, fastModelId: MODEL_ID } };

    // Act: the first attempt, then a retry from the same (now stale) read
    await applyQueuedRevisions(ports, input);
    const retried = await applyQueuedRevisions(ports, input);

    // Assess
    expect(model.requestsFor("reconcile").map((request) => request.call)).toEqual([0, 1]);
    expect(retried.record.revision).toBe(3);
    expect(retried.record.contextNotes).toEqual(["The reader is five"]);
    expect(retried.record.revisionLog.map((entry) => entry.type)).toEqual(["inject_context", "refinement"]);
    expect(retried.record.usageByRole.reconcile?.modelCalls).toBe(2);
    const applied = (await loop.events(goal.goalId)).filter((event) => event.type === "revision.applied");
    expect(applied.map((event) => event.revisionId)).toEqual(["rev-a", "rev-b"]);
  });

  it("runs a corrective revision's compensation: the last workspace_write's previous content comes back", async () => {
    // Prepare: two writes of the same file, the second one wrong
    const goal = await createGoal(table, TWO_CHECKS);
    const model = new ScriptedModel({
      reason: [
        writes("out/notes.md", "good notes"),
        writes("out/notes.md", "wrong notes"),
        writes("out/haiku.md", "autumn"),
      ],
      reconcile: [says("{}")],
    });
    const loop = new ReactLoopDriver(table, model);
    let position = await loop.load(goal.goalId);
    position = await loop.verifyAndReason(position);
    position = await loop.verifyAndReason(position);
    await queue(goal.goalId, { type: "corrective", content: "The last notes were wrong: undo them" });

    // Act
    await loop.verifyAndReason(position);

    // Assess
    const file = await table.adapters.workspace.readFile(goal.goalId, "out/notes.md");
    expect(file?.content).toBe("good notes");
    const revised = await loop.goal(goal.goalId);
    expect(revised.pendingCorrections).toEqual([]);
    const types = (await loop.events(goal.goalId)).map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(["compensation.requested", "compensation.completed"]));
    const completed = (await loop.events(goal.goalId)).find(
      (event) => event.type === "compensation.completed",
    );
    expect(completed).toMatchObject({
      revisionId: "rev-1",
      action: "restored",
      tool: "workspace_write",
      path: "out/notes.md",
    });
  });

  it("leaves the inbox alone while the goal is not running in the step's run", async () => {
    // Prepare
    const goal = await createGoal(table);
    const model = new ScriptedModel({});
    await queue(goal.goalId, { type: "redirect" });
    const stored = await table.adapters.goals.getGoal(goal.goalId);
    if (!stored) throw new Error("goal vanished");

    // Act
    const result = await applyQueuedRevisions(
      { ...table.adapters, model, now: steppingClock() },
      { loaded: stored, runId: "r9", models: { heavyModelId: MODEL_ID, fastModelId: MODEL_ID } },
    );

    // Assess
    expect(result.record.inbox).toHaveLength(1);
    expect(result.record.revision).toBe(1);
    expect(model.requests).toEqual([]);
  });
});
