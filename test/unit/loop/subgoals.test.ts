import { describe, expect, it } from "vitest";
import { checkProgress } from "../../../lambdas/core/goal/evidence/check-evidence";
import type { JsonValue } from "../../../lambdas/core/goal/goal-change";
import type { GoalRecord, Usage } from "../../../lambdas/core/goal/goal-record";
import type { GoalSpecInput } from "../../../lambdas/core/goal/goal-spec";
import { toSnapshot } from "../../../lambdas/core/goal/snapshot";
import { type SubgoalEntry, subgoalWaitId } from "../../../lambdas/core/goal/subgoals";
import { parseSubmittedGoalSpec } from "../../../lambdas/core/intake/goal-intake";
import { recordChildrenEnded, SUBGOAL_ENDED_EVENT } from "../../../lambdas/core/loop/subgoals/child-ended";
import { goalEndedSignal } from "../../../lambdas/core/loop/subgoals/goal-ended";
import { planChildren, type SubgoalSettings } from "../../../lambdas/core/loop/subgoals/plan-children";
import type { SpawnCall } from "../../../lambdas/core/loop/subgoals/spawn-calls";
import { subgoalOutcome } from "../../../lambdas/core/loop/subgoals/subgoal-outcome";
import { buildGoal, NOW } from "../goal/support";

const SETTINGS: SubgoalSettings = {
  defaultTools: ["workspace_list", "workspace_read", "workspace_write"],
  maxDepth: 3,
  maxChildren: 10,
  allowedModelIds: ["scripted:*"],
  patterns: ["react", "plan_execute", "reflexion"],
  choosePattern: (spec) => ({ pattern: spec.pattern === "auto" ? "react" : spec.pattern, reason: "test" }),
};

const TURN = { runId: "r1", iteration: 0 };

/** A parent goal granted spawn_subgoal, with $1 and 25 steps, nothing spent. */
function aParent(overrides: Partial<GoalSpecInput> = {}): GoalRecord {
  return buildGoal({
    tools: ["spawn_subgoal", "workspace_write", "workspace_read"],
    limits: { maxSteps: 25, maxCostUsd: 1 },
    approval: { requireFor: ["workspace_write"], preAuthorized: [], channels: ["api"] },
    models: { default: "scripted:parent" },
    ...overrides,
  });
}

function spawn(input: JsonValue, toolUseId = "t1"): SpawnCall {
  return { call: { toolUseId, name: "spawn_subgoal", input }, callKey: `key-${toolUseId}` };
}

function childRequest(extra: Record<string, unknown> = {}) {
  return {
    objective: "Write notes.md",
    successChecks: [
      { id: "notes", description: "notes.md exists", verify: { kind: "artifact", path: "notes.md" } },
    ],
    ...extra,
  };
}

const USAGE: Usage = {
  inputTokens: 100,
  outputTokens: 10,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 2,
  costUsd: 0.02,
};

describe("planChildren (spawn_subgoal calls becoming children)", () => {
  it("gives each child a share of the parent's remaining budget, its tools, approval policy and models", () => {
    // Act
    const parent = aParent();
    const planned = planChildren(
      parent,
      [spawn(childRequest(), "t1"), spawn(childRequest(), "t2")],
      SETTINGS,
      {
        now: NOW,
        turn: TURN,
      },
    );

    // Assess: $1 and 24 steps (25 minus the step making the calls) split between the two
    expect(planned.map((item) => item.entry.reserved)).toEqual([
      { maxCostUsd: 0.5, maxSteps: 12 },
      { maxCostUsd: 0.5, maxSteps: 12 },
    ]);
    const child = planned[0]?.child?.record;
    expect(child?.goalId).toBe(planned[0]?.entry.goalId);
    expect(child?.spec.parentGoalId).toBe(parent.goalId);
    expect(child?.depth).toBe(1);
    expect(child?.spec.tools).toEqual(["spawn_subgoal", "workspace_write", "workspace_read"]);
    expect(child?.spec.approval.requireFor).toEqual(["workspace_write"]);
    expect(child?.spec.models).toEqual({ default: "scripted:parent" });
    expect(planned[0]?.child?.events[0]).toMatchObject({ type: "goal.created", depth: 1 });
  });

  it("derives the child's id from the parent and the call: planning again plans the same child", () => {
    // Prepare
    const parent = aParent();
    const plan = () => planChildren(parent, [spawn(childRequest())], SETTINGS, { now: NOW, turn: TURN });

    // Act + Assess
    expect(plan()[0]?.entry.goalId).toMatch(/^g-[0-9a-z]{26}$/);
    expect(plan()[0]?.entry.goalId).toBe(plan()[0]?.entry.goalId);
  });

  it("refuses more budget than the parent has left as a tool error naming the limit", () => {
    // Prepare: $0.40 spent, and a running child holds $0.25 of the rest
    const running: SubgoalEntry = {
      callKey: "earlier",
      toolUseId: "t0",
      runId: "r1",
      iteration: 0,
      status: "running",
      goalId: "g-0",
      objective: "earlier",
      reserved: { maxCostUsd: 0.25, maxSteps: 5 },
      startedAt: NOW.toISOString(),
    };
    const parent = { ...aParent(), usage: { ...USAGE, costUsd: 0.4 }, subgoals: [running] };

    // Act
    const [refused] = planChildren(parent, [spawn(childRequest({ limits: { maxCostUsd: 0.5 } }))], SETTINGS, {
      now: NOW,
      turn: TURN,
    });

    // Assess
    expect(refused?.child).toBeUndefined();
    expect(refused?.entry).toMatchObject({ status: "refused", refusal: { name: "SubgoalBudgetExceeded" } });
    expect(refused?.entry.refusal?.message).toBe(
      "limits.maxCostUsd: $0.50 asked, but the parent has $0.35 left (maxCostUsd $1.00, spent $0.40, the rest reserved by running sub-goals). Ask for at most $0.35.",
    );
  });

  it.each([
    ["a deadline after the parent's", { limits: { deadline: "2031-01-01T00:00:00Z" } }, "limits.deadline"],
    ["more steps than the parent has", { limits: { maxSteps: 30 } }, "limits.maxSteps"],
  ])("refuses %s", (_case, extra, named) => {
    // Act
    const parent = aParent({ limits: { maxSteps: 25, maxCostUsd: 1, deadline: "2030-01-01T00:00:00Z" } });
    const [refused] = planChildren(parent, [spawn(childRequest(extra))], SETTINGS, { now: NOW, turn: TURN });

    // Assess
    expect(refused?.entry.refusal?.name).toBe("SubgoalBudgetExceeded");
    expect(refused?.entry.refusal?.message).toMatch(new RegExp(`^${named.replace(".", "\\.")}: `));
  });

  it.each([
    ["a tool the parent lacks", { tools: ["notify"] }, "SubgoalToolNotGranted", "tools.0: 'notify'"],
    [
      "a model off the allow-list",
      { models: { default: "anthropic.other" } },
      "ModelNotAllowed",
      "models.default",
    ],
    ["an input the schema refuses", { successChecks: [] }, "InvalidToolInput", "successChecks"],
  ])("refuses %s, naming it", (_case, extra, name, named) => {
    // Act
    const [refused] = planChildren(aParent(), [spawn(childRequest(extra))], SETTINGS, {
      now: NOW,
      turn: TURN,
    });

    // Assess
    expect(refused?.entry.refusal?.name).toBe(name);
    expect(refused?.entry.refusal?.message).toContain(named);
  });

  it("refuses a child deeper than subgoals.maxDepth, and more children than subgoals.maxChildren", () => {
    // Act
    const deep = planChildren({ ...aParent(), depth: 3 }, [spawn(childRequest())], SETTINGS, {
      now: NOW,
      turn: TURN,
    });
    const many = planChildren(
      aParent(),
      [spawn(childRequest(), "t1"), spawn(childRequest(), "t2")],
      { ...SETTINGS, maxChildren: 1 },
      {
        now: NOW,
        turn: TURN,
      },
    );

    // Assess
    expect(deep[0]?.entry.refusal?.name).toBe("SubgoalDepthExceeded");
    expect(many.map((item) => item.entry.status)).toEqual(["running", "refused"]);
    expect(many[1]?.entry.refusal?.name).toBe("TooManySubgoals");
  });

  it("starts the sub-goal a plan step describes, whatever the executor's call passed", () => {
    // Act
    const [planned] = planChildren(aParent(), [spawn({})], SETTINGS, {
      now: NOW,
      turn: TURN,
      stepRequest: childRequest({ objective: "The plan's own sub-goal" }),
    });

    // Assess
    expect(planned?.child?.record.spec.objective).toBe("The plan's own sub-goal");
  });
});

/** A parent waiting on the two children its turn started, and the children's final records. */
function waitingParent() {
  const parent = aParent();
  const [a, b] = planChildren(parent, [spawn(childRequest(), "t1"), spawn(childRequest(), "t2")], SETTINGS, {
    now: NOW,
    turn: TURN,
  });
  const waitId = subgoalWaitId(parent.goalId, TURN);
  const waiting: GoalRecord = {
    ...parent,
    status: "waiting",
    activeTask: null,
    subgoals: [a?.entry, b?.entry].flatMap((entry) => (entry ? [entry] : [])),
    waitingFor: { kind: "subgoal", approvalId: waitId, reason: "children", goalIds: [] },
    resumeCondition: { eventType: SUBGOAL_ENDED_EVENT, approvalId: waitId, revision: 1 },
    subgoalWait: { waitId, ...TURN, taskToken: "token-1", since: NOW.toISOString() },
  };
  const ended = (record: GoalRecord | undefined, status: "completed" | "cancelled"): GoalRecord => {
    if (!record) throw new Error("no child planned");
    return { ...record, status, activeTask: null, usage: USAGE, usageByRole: { reason: USAGE } };
  };
  return {
    waiting,
    childA: ended(a?.child?.record, "completed"),
    childB: ended(b?.child?.record, "cancelled"),
  };
}

describe("recordChildrenEnded (a child's end reaching its parent)", () => {
  it("adds each ended child's usage to the parent's once, and wakes the parent when the turn's last one ended", () => {
    // Prepare
    const { waiting, childA, childB } = waitingParent();

    // Act
    const first = recordChildrenEnded(waiting, [childA], NOW);
    const again = first && recordChildrenEnded(first.change.record, [childA], NOW);
    const last = first && recordChildrenEnded(first.change.record, [childB], NOW);

    // Assess: still waiting after the first, usage counted once, woken into `act` after the second
    expect(first?.change.record.status).toBe("waiting");
    expect(first?.woke).toBeUndefined();
    expect(first?.change.record.usage.modelCalls).toBe(2);
    expect(again).toBeUndefined();
    expect(last?.woke?.taskToken).toBe("token-1");
    expect(last?.change.record).toMatchObject({ status: "running", activeTask: "act", waitingFor: null });
    expect(last?.change.record.subgoalWait).toBeUndefined();
    expect(last?.change.record.usage).toMatchObject({ modelCalls: 4, costUsd: 0.04 });
    expect(last?.change.record.usageByRole.reason?.modelCalls).toBe(4);
    expect(last?.change.events.map((event) => event.type)).toEqual(["subgoal.ended", "goal.woken"]);
  });

  it("adds a call counted on a child after its end (in flight when it was cancelled) to the parent, once", () => {
    // Prepare: the child's end is recorded, then one more call of 10 tokens is counted on it
    const { waiting, childB } = waitingParent();
    const recorded = recordChildrenEnded(waiting, [childB], NOW)?.change.record;
    if (!recorded) throw new Error("not recorded");
    const late = { ...USAGE, modelCalls: 3, inputTokens: 110, costUsd: 0.03 };
    const grown: GoalRecord = { ...childB, usage: late, usageByRole: { reason: late } };

    // Act
    const added = recordChildrenEnded(recorded, [grown], NOW);
    const again = added && recordChildrenEnded(added.change.record, [grown], NOW);

    // Assess
    expect(added?.change.record.usage).toMatchObject({ modelCalls: 3, inputTokens: 110, costUsd: 0.03 });
    expect(added?.change.record.usageByRole.reason?.modelCalls).toBe(3);
    expect(added?.change.events.map((event) => event.type)).toEqual(["subgoal.usage"]);
    expect(again).toBeUndefined();
  });

  it("records a child's end on a parent that already ended, without waking it", () => {
    // Prepare
    const { waiting, childA } = waitingParent();
    const cancelled: GoalRecord = {
      ...waiting,
      status: "cancelled",
      waitingFor: null,
      resumeCondition: null,
    };

    // Act
    const recorded = recordChildrenEnded(cancelled, [childA], NOW);

    // Assess
    expect(recorded?.woke).toBeUndefined();
    expect(recorded?.change.record.status).toBe("cancelled");
    expect(recorded?.change.record.usage.modelCalls).toBe(2);
  });
});

describe("subgoalOutcome (the parent's evidence)", () => {
  it("answers a completed child with its status, checks and evidence references, a cancelled one with an error", () => {
    // Prepare
    const { waiting, childA, childB } = waitingParent();
    const completed: GoalRecord = {
      ...childA,
      evidence: [
        {
          checkId: "notes",
          kind: "artifact",
          strength: "strong",
          path: "notes.md",
          sha256: "a".repeat(64),
          runId: "r1",
          iteration: 0,
          at: NOW.toISOString(),
        },
      ],
    };
    const [entryA, entryB] = waiting.subgoals ?? [];

    // Act
    const success = subgoalOutcome({ toolUseId: "t1", name: "spawn_subgoal", input: {} }, entryA, completed);
    const failure = subgoalOutcome({ toolUseId: "t2", name: "spawn_subgoal", input: {} }, entryB, childB);

    // Assess
    expect(success.result.status).toBe("success");
    expect(success.observation.resultJson).toMatchObject({
      goalId: completed.goalId,
      status: "completed",
      satisfiedChecks: ["notes"],
      evidence: [{ checkId: "notes", kind: "artifact", path: "notes.md", sha256: "a".repeat(64) }],
      usage: { modelCalls: 2, costUsd: 0.02 },
    });
    expect(failure.result.status).toBe("error");
    expect(failure.errorName).toBe("SubgoalCancelled");
  });
});

describe("progress and snapshots of a parent", () => {
  it("counts a tool_result check on spawn_subgoal as partial while a child runs", () => {
    // Prepare
    const { waiting } = waitingParent();
    const parent = {
      ...waiting,
      spec: {
        ...waiting.spec,
        successChecks: [
          {
            id: "child-done",
            description: "a sub-goal completed",
            verify: {
              kind: "tool_result" as const,
              tool: "spawn_subgoal",
              expect: { status: "success" as const },
            },
          },
          ...waiting.spec.successChecks,
        ],
      },
    };

    // Act + Assess
    expect(checkProgress(parent).checks).toMatchObject({ "child-done": "partial", report: "not_met" });
    expect(checkProgress({ ...parent, subgoals: [] }).checks["child-done"]).toBe("not_met");
  });

  it("shows its children and which of them waits for a human, under the parent's waitingFor", () => {
    // Prepare
    const { waiting, childA, childB } = waitingParent();
    const goalIds = (waiting.subgoals ?? []).flatMap((entry) => entry.goalId ?? []);
    const parent = {
      ...waiting,
      waitingFor: {
        ...waiting.waitingFor,
        kind: "subgoal" as const,
        approvalId: "w",
        reason: "children",
        goalIds,
      },
    };
    const asking: GoalRecord = {
      ...childA,
      status: "waiting",
      waitingFor: { kind: "approval", approvalId: "ap-1", reason: "approve before it runs: notify" },
      resumeCondition: { eventType: "Approval Decided", approvalId: "ap-1", revision: 1 },
    };

    // Act
    const snapshot = toSnapshot(parent, { children: [asking, childB] });

    // Assess
    expect(snapshot.children?.map((child) => child.status)).toEqual(["waiting", "cancelled"]);
    expect(snapshot.waitingFor?.reason).toContain(
      `sub-goal ${childA.goalId} waits: approve before it runs: notify`,
    );
    expect(toSnapshot(asking).parentGoalId).toBe(parent.goalId);
  });
});

describe("the Goal Ended signal", () => {
  it("is sent for a sub-goal, a parent with running children and an abandoned plan; not for a lone goal", () => {
    // Prepare
    const { waiting, childA } = waitingParent();
    const endedEvent = [{ type: "goal.cancelled", at: NOW.toISOString() }];
    const lone = { ...aParent(), status: "completed" as const, activeTask: null };

    // Act + Assess
    expect(goalEndedSignal(childA, [{ type: "goal.completed", at: NOW.toISOString() }])).toMatchObject({
      goalId: childA.goalId,
      parentGoalId: waiting.goalId,
    });
    expect(goalEndedSignal({ ...waiting, status: "cancelled" }, endedEvent)?.goalId).toBe(waiting.goalId);
    expect(
      goalEndedSignal({ ...lone, pattern: "plan_execute", status: "terminated" }, endedEvent),
    ).toBeDefined();
    expect(goalEndedSignal(lone, [{ type: "goal.completed", at: NOW.toISOString() }])).toBeUndefined();
    expect(goalEndedSignal(childA, [{ type: "progress", at: NOW.toISOString() }])).toBeUndefined();
  });
});

describe("a submitted GoalSpec", () => {
  it("may not set parentGoalId or depth: the system does, and the error names each field", () => {
    // Act + Assess
    expect(() => parseSubmittedGoalSpec({ ...childRequest(), parentGoalId: "g-1", depth: 2 })).toThrow(
      expect.objectContaining({
        name: "ValidationError",
        issues: [
          expect.objectContaining({ path: "parentGoalId" }),
          expect.objectContaining({ path: "depth" }),
        ],
      }),
    );
    expect(parseSubmittedGoalSpec(childRequest()).objective).toBe("Write notes.md");
  });
});
