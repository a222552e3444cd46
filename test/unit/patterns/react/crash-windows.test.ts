import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceVersionKey } from "../../../../lambdas/adapters/dynamodb/goal-table-keys";
import { verifyAndReason } from "../../../../lambdas/core/patterns/react/verify-and-reason";
import type { StepStateRecorder } from "../../../../lambdas/core/ports/goal-history";
import type { GoalStore, ModelCheckpoint } from "../../../../lambdas/core/ports/goal-store";
import {
  calls,
  createGoal,
  diesAtCommit,
  ReactLoopDriver,
  ScriptedModel,
  SETTINGS,
  type ServedGoalTable,
  startGoalTable,
  writes,
} from "../../loop/support";

/**
 * The crash windows VerifyAndReason's grouped writes open: the step state put beside the reason
 * call's checkpoint, and the version a workspace write replaces archived beside the reason commit.
 * Each crash leaves items a rerun writes again with the same content, and the rerun goes on
 * without paying for a call twice or applying a write twice.
 */
describe("VerifyAndReason's crash windows between its data writes and its commit", () => {
  let table: ServedGoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  /** Two iterations that write notes.md and then the haiku the check asks for. */
  function twoIterations() {
    return new ScriptedModel({
      reason: [
        calls("workspace_write", { path: "notes.md", content: "first draft" }),
        writes("out/haiku.md", "autumn"),
      ],
    });
  }

  it("stores the same step state when the step died after the reason checkpoint and before the state", async () => {
    // Prepare: a goal run without a crash, and one whose second iteration dies once its reason
    // checkpoint is stored, its step state not.
    const control = new ReactLoopDriver(table, twoIterations());
    const controlGoal = await createGoal(table);
    await control.verifyAndReason(await control.verifyAndReason(await control.load(controlGoal.goalId)));

    const model = twoIterations();
    const loop = new ReactLoopDriver(table, model);
    const goal = await createGoal(table);
    const first = await loop.verifyAndReason(await loop.load(goal.goalId));
    const real = table.adapters;
    let checkpointStored: Promise<ModelCheckpoint> | undefined;
    const goals: GoalStore = Object.create(real.goals);
    goals.putCheckpoint = (checkpoint) => {
      checkpointStored = real.goals.putCheckpoint(checkpoint);
      return checkpointStored;
    };
    const history: StepStateRecorder = Object.create(real.stepLog);
    history.putStepState = async () => {
      await checkpointStored;
      throw new Error("died beside the reason checkpoint");
    };
    await expect(verifyAndReason({ ...loop.ports(goals), history }, SETTINGS, first)).rejects.toThrow(
      "died beside the reason checkpoint",
    );
    const afterCrash = await loop.goal(goal.goalId);

    // Act: the state machine's Retry
    const retried = await loop.verifyAndReason(first);

    // Assess: nothing was committed by the dead attempt; the retry reused the paid call and stored
    // the state the uncrashed goal stored (its calls do not count the retried iteration's own call).
    expect(afterCrash.steps).toBe(0);
    expect(retried).toMatchObject({ iteration: 2, next: "verify" });
    expect(model.requestsFor("reason")).toHaveLength(2);
    const stored = await real.stepLog.getStepState(goal.goalId, 1);
    const expected = await real.stepLog.getStepState(controlGoal.goalId, 1);
    expect(stored?.kind === "state" && stored.state.calls).toEqual(
      expected?.kind === "state" && expected.state.calls,
    );
    expect(stored?.kind === "state" && stored.state.calls).toEqual({ reason: 1 });
    expect(stored?.kind === "state" && stored.state.workspace.map((file) => file.path)).toEqual(["notes.md"]);
    const types = (await loop.events(goal.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "model.turn")).toHaveLength(2);
  });

  it("writes a file once when the step died at the reason commit after the replaced version was archived", async () => {
    // Prepare: notes.md at version 1; the next turn rewrites it, and its reason commit dies (the
    // replaced version was archived beside it).
    const model = new ScriptedModel({
      reason: [
        calls("workspace_write", { path: "notes.md", content: "first draft" }),
        calls("workspace_write", { path: "notes.md", content: "second draft" }),
        writes("out/haiku.md", "autumn"),
      ],
    });
    const loop = new ReactLoopDriver(table, model);
    const goal = await createGoal(table);
    const first = await loop.verifyAndReason(await loop.load(goal.goalId));
    await expect(
      verifyAndReason(loop.ports(diesAtCommit(table.adapters.goals, 1)), SETTINGS, first),
    ).rejects.toThrow("died at commit 1");
    const { workspace } = table.adapters;
    const untouched = await workspace.readFile(goal.goalId, "notes.md");
    const archived = await table.documents.send(
      new GetCommand({
        TableName: table.tableName,
        Key: workspaceVersionKey(goal.goalId, "notes.md", 1),
        ConsistentRead: true,
      }),
    );

    // Act: the state machine's Retry, then the iteration after it
    const retried = await loop.verifyAndReason(first);
    const last = await loop.verifyAndReason(retried);

    // Assess: the dead attempt moved no file; the retry wrote version 2 once on top of version 1,
    // whose content stays readable for a compensation; every call was paid once.
    expect(untouched).toMatchObject({ version: 1, content: "first draft" });
    expect(archived.Item).toMatchObject({ deleted: false, content: "first draft" });
    expect(retried).toMatchObject({ iteration: 2, next: "verify" });
    expect(last).toMatchObject({ iteration: 3, next: "verify" });
    expect(await workspace.readFile(goal.goalId, "notes.md")).toMatchObject({
      version: 2,
      content: "second draft",
      previous: { content: "first draft" },
    });
    expect(await workspace.readVersion(goal.goalId, "notes.md", 1)).toMatchObject({
      deleted: false,
      content: "first draft",
    });
    expect(model.requestsFor("reason")).toHaveLength(3);
    const goalNow = await loop.goal(goal.goalId);
    expect(goalNow.steps).toBe(2);
    const types = (await loop.events(goal.goalId)).map((event) => event.type);
    expect(types.filter((type) => type === "tool.called")).toHaveLength(3);
  });
});
