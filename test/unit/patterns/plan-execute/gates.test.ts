import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalExpired } from "../../../../lambdas/core/loop/gates/approval-expired";
import { type GoalTable, lastUserText, ScriptedModel, startGoalTable } from "../../loop/support";
import { createPlanGoal, lastOf, PlanLoopDriver, planSpec, step, submitsPlan, uses } from "./support";

const NOTES = "# 2.0\n\nPlans, steps and evidence.";
const writeNotes = () => uses("workspace_write", { path: "notes.md", content: NOTES });
/** A call the deployment refuses (host outside the allow-list): a policy, never retried. */
const fetchForbidden = () =>
  uses("http_request", { method: "GET", url: "https://internal.corp.example/secrets" });

describe("Plan-and-Execute human gates", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  describe("an unrecoverable step failure", () => {
    function scripted() {
      return new ScriptedModel({
        plan: [
          submitsPlan([
            step("fetch", { tool: "http_request" }),
            step("write", { tool: "workspace_write", dependsOn: ["fetch"] }),
          ]),
          submitsPlan([step("write-from-objective", { tool: "workspace_write" })]),
        ],
        execute: [fetchForbidden(), writeNotes()],
      });
    }

    it("is never retried: the goal waits for a human decision", async () => {
      // Prepare
      const goal = await createPlanGoal(table);
      const model = scripted();
      const loop = new PlanLoopDriver(table, model);

      // Act
      const answered = await loop.run(goal.goalId);
      const last = answered.at(-1);
      if (!last) throw new Error("no answer");
      const { requested } = await loop.requestApproval(last);

      // Assess
      expect(last.next).toBe("decision");
      expect(model.requestsFor("execute")).toHaveLength(1);
      expect(model.requestsFor("plan")).toHaveLength(1);
      const waiting = await loop.goal(goal.goalId);
      expect(waiting).toMatchObject({
        status: "waiting",
        waitingFor: { kind: "decision", reason: expect.stringContaining("HttpRequestRefused") },
        stopReason: null,
      });
      expect(requested.outcome).toBe("requested");
      const [observed] = await loop.eventsOf(goal.goalId, "plan.step.observed");
      expect(observed).toMatchObject({ stepId: "fetch", outcome: "unrecoverable_failure", retry: false });
      expect(await loop.eventsOf(goal.goalId, "approval.requested")).toEqual([
        expect.objectContaining({ kind: "decision" }),
      ]);
    });

    it("is replanned around once a human approves, with the human's comment, and the goal completes", async () => {
      // Prepare
      const goal = await createPlanGoal(table);
      const model = scripted();
      const loop = new PlanLoopDriver(table, model);
      const answered = await loop.run(goal.goalId);
      const { requested } = await loop.requestApproval(lastOf(answered));
      if (requested.outcome !== "requested") throw new Error("no decision requested");

      // Act
      const woken = await loop.decide(requested.approvalId, "approve", "write it from the objective");
      await loop.continue(woken);

      // Assess
      expect(woken.next).toBe("verify");
      expect((await loop.goal(goal.goalId)).status).toBe("completed");
      expect(await loop.eventsOf(goal.goalId, "plan.revised")).toEqual([
        expect.objectContaining({
          strategy: "replace_subplan",
          trigger: "decision_approved",
          stepIds: ["fetch"],
        }),
      ]);
      expect(lastUserText(model.requestsFor("plan")[1])).toContain("write it from the objective");
    });

    it("terminates the goal when a human rejects, or when nobody decides in time", async () => {
      // Prepare
      const rejectedGoal = await createPlanGoal(table);
      const expiredGoal = await createPlanGoal(table);
      const rejecting = new PlanLoopDriver(table, scripted());
      const expiring = new PlanLoopDriver(table, scripted());
      const rejectedRun = await rejecting.run(rejectedGoal.goalId);
      const expiredRun = await expiring.run(expiredGoal.goalId);
      const { requested } = await rejecting.requestApproval(lastOf(rejectedRun));
      await expiring.requestApproval(lastOf(expiredRun));
      if (requested.outcome !== "requested") throw new Error("no decision requested");

      // Act
      const rejected = await rejecting.decide(requested.approvalId, "reject");
      const expired = await approvalExpired(
        { goals: table.adapters.goals, now: expiring.now },
        lastOf(expiredRun),
      );

      // Assess
      expect(rejected.next).toBe("terminated");
      expect(await rejecting.goal(rejectedGoal.goalId)).toMatchObject({
        status: "terminated",
        stopReason: {
          kind: "fatal_error",
          detail: "HttpRequestRefused",
          message: expect.stringContaining("ana chose to terminate"),
        },
      });
      expect(expired.next).toBe("terminated");
      expect(await expiring.goal(expiredGoal.goalId)).toMatchObject({
        status: "terminated",
        stopReason: { message: expect.stringContaining("no decision before the wait timed out") },
      });
    });
  });

  describe('the plan approval gate (approval.requireFor lists "plan")', () => {
    const gatedSpec = planSpec({ approval: { requireFor: ["plan"] } });

    it("waits for a human before the first step; once approved the plan runs", async () => {
      // Prepare
      const goal = await createPlanGoal(table, gatedSpec);
      const model = new ScriptedModel({
        plan: [submitsPlan([step("write", { tool: "workspace_write", action: "Write notes.md" })])],
        execute: [writeNotes()],
      });
      const loop = new PlanLoopDriver(table, model);

      // Act
      const answered = await loop.run(goal.goalId);
      const { requested } = await loop.requestApproval(lastOf(answered));
      if (requested.outcome !== "requested") throw new Error("no approval requested");
      const approval = await table.adapters.goals.getApproval(requested.approvalId);
      const executedBefore = model.requestsFor("execute").length;
      const woken = await loop.decide(requested.approvalId, "approve");
      await loop.continue(woken);

      // Assess
      expect(answered.map((answer) => answer.next)).toEqual(["verify", "plan", "approval"]);
      expect(approval?.action).toMatchObject({
        kind: "plan",
        summary: expect.stringContaining("write (workspace_write)"),
      });
      expect(executedBefore).toBe(0);
      expect(woken.next).toBe("verify");
      expect((await loop.goal(goal.goalId)).status).toBe("completed");
      expect(await loop.eventsOf(goal.goalId, "plan.approved")).toHaveLength(1);
    });

    it("pauses the goal when nobody approves the plan in time: an unapproved plan never runs", async () => {
      // Prepare
      const goal = await createPlanGoal(table, gatedSpec);
      const model = new ScriptedModel({ plan: [submitsPlan([step("write", { tool: "workspace_write" })])] });
      const loop = new PlanLoopDriver(table, model);
      const answered = await loop.run(goal.goalId);
      await loop.requestApproval(lastOf(answered));

      // Act
      const expired = await approvalExpired({ goals: table.adapters.goals, now: loop.now }, lastOf(answered));
      const after = await loop.continue(expired);

      // Assess
      expect(expired.next).toBe("verify");
      expect(lastOf(after).next).toBe("paused");
      expect(await loop.goal(goal.goalId)).toMatchObject({
        status: "paused",
        stopReason: { kind: "policy", detail: "PlanApprovalExpired" },
        planState: { needsApproval: true },
      });
      expect(model.requestsFor("execute")).toHaveLength(0);
    });

    it("replans globally with the human's comment when the plan is rejected, and asks again", async () => {
      // Prepare
      const goal = await createPlanGoal(table, gatedSpec);
      const model = new ScriptedModel({
        plan: [
          submitsPlan([step("ask", { tool: "notify", action: "Ask ops for the notes" })]),
          submitsPlan([step("write", { tool: "workspace_write" })]),
        ],
      });
      const loop = new PlanLoopDriver(table, model);
      const answered = await loop.run(goal.goalId);
      const { requested } = await loop.requestApproval(lastOf(answered));
      if (requested.outcome !== "requested") throw new Error("no approval requested");

      // Act
      const woken = await loop.decide(
        requested.approvalId,
        "reject",
        "do not bother ops, write them yourself",
      );
      const again = await loop.continue(woken);

      // Assess
      expect(again.map((answer) => answer.next)).toEqual(["verify", "plan", "approval"]);
      expect(await loop.eventsOf(goal.goalId, "plan.revised")).toEqual([
        expect.objectContaining({ strategy: "global", trigger: "plan_rejected", needsApproval: true }),
      ]);
      expect(lastUserText(model.requestsFor("plan")[1])).toContain("do not bother ops");
      expect((await loop.goal(goal.goalId)).replans).toBe(1);
    });
  });
});
