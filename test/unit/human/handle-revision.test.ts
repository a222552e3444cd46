import { describe, expect, it } from "vitest";
import { terminate, waitFor } from "../../../lambdas/core/goal/goal-lifecycle";
import { handleRevisionRequested } from "../../../lambdas/core/human/handle-revision";
import type { RevisionRequestedDetail } from "../../../lambdas/core/human/human-input-events";
import { createGoal } from "../loop/support";
import { AT, changeGoal, clock, eventTypes, storedGoal, suiteGoalTable } from "./control-support";

function aRevision(
  goalId: string,
  overrides: Partial<RevisionRequestedDetail> = {},
): RevisionRequestedDetail {
  return {
    goalId,
    revisionId: "rev-1",
    type: "redirect",
    content: "Write the haiku about winter instead",
    requestedBy: "ana",
    channel: "api",
    requestedAt: AT,
    ...overrides,
  };
}

describe("handleRevisionRequested", () => {
  const table = suiteGoalTable();

  const ports = () => ({ goals: table.adapters.goals, now: clock });

  it("queues the revision in the goal's inbox with a revision.queued event", async () => {
    // Prepare
    const goal = await createGoal(table);

    // Act
    const result = await handleRevisionRequested(ports(), aRevision(goal.goalId, { reason: "winter now" }));

    // Assess
    expect(result).toEqual({ outcome: "queued", revisionId: "rev-1" });
    const stored = await storedGoal(table, goal.goalId);
    expect(stored.inbox).toMatchObject([
      { revisionId: "rev-1", type: "redirect", requestedBy: "ana", reason: "winter now", requestedAt: AT },
    ]);
    expect(stored.revision).toBe(1);
    expect(stored.spec.objective).toBe(goal.spec.objective);
    expect((await eventTypes(table, goal.goalId)).at(-1)).toBe("revision.queued");
  });

  it("answers a duplicate delivery of the same revision id as a no-op", async () => {
    // Prepare
    const goal = await createGoal(table);
    await handleRevisionRequested(ports(), aRevision(goal.goalId));
    const eventsBefore = await eventTypes(table, goal.goalId);

    // Act
    const again = await handleRevisionRequested(ports(), aRevision(goal.goalId));

    // Assess
    expect(again).toEqual({ outcome: "duplicate", revisionId: "rev-1" });
    expect((await storedGoal(table, goal.goalId)).inbox).toHaveLength(1);
    expect(await eventTypes(table, goal.goalId)).toEqual(eventsBefore);
  });

  it("never wakes a goal that waits for an approval", async () => {
    // Prepare
    const goal = await createGoal(table);
    const approval = { approvalId: "ap-1" };
    await changeGoal(table, goal.goalId, (record) =>
      waitFor(
        record,
        { kind: "approval", reason: "irreversible tool notify", ...approval },
        { eventType: "Approval Decided", revision: 1, ...approval },
        clock(),
      ),
    );

    // Act
    const result = await handleRevisionRequested(ports(), aRevision(goal.goalId));

    // Assess
    expect(result.outcome).toBe("queued");
    const stored = await storedGoal(table, goal.goalId);
    expect(stored.status).toBe("waiting");
    expect(stored.resumeCondition).toMatchObject({ approvalId: "ap-1" });
    expect(stored.inbox).toHaveLength(1);
  });

  it("ignores a revision for a final goal or an unknown one, saying why", async () => {
    // Prepare
    const goal = await createGoal(table);
    await changeGoal(table, goal.goalId, (record) =>
      terminate(record, { kind: "policy", detail: "test", message: "test" }, clock()),
    );

    // Act
    const final = await handleRevisionRequested(ports(), aRevision(goal.goalId));
    const unknown = await handleRevisionRequested(ports(), aRevision("g-unknown"));

    // Assess
    expect(final).toEqual({ outcome: "ignored", revisionId: "rev-1", reason: "goal is terminated" });
    expect(unknown).toMatchObject({ outcome: "ignored", reason: "goal 'g-unknown' does not exist" });
    expect((await storedGoal(table, goal.goalId)).inbox).toEqual([]);
  });

  it("ignores, with the validation message, a revision the goal's contract refuses", async () => {
    // Prepare: only redirect, modify_objective and pivot may replace success checks
    const goal = await createGoal(table);
    const checks = [{ id: "x", description: "x", verify: { kind: "artifact" as const, path: "x.md" } }];

    // Act
    const result = await handleRevisionRequested(
      ports(),
      aRevision(goal.goalId, { type: "add_constraint", successChecks: checks }),
    );

    // Assess
    expect(result.outcome).toBe("ignored");
    expect(result).toMatchObject({ reason: expect.stringContaining("successChecks") });
    expect((await storedGoal(table, goal.goalId)).inbox).toEqual([]);
  });
});
