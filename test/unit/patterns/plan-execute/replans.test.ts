import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GoalTable, lastUserText, ScriptedModel, startGoalTable } from "../../loop/support";
import {
  answers,
  createPlanGoal,
  fetchAnswering,
  lastOf,
  PLAN_SETTINGS,
  PlanLoopDriver,
  planSpec,
  step,
  submitsPlan,
  uses,
} from "./support";

const NOTES = "# 2.0\n\nPlans, steps and evidence.";
const CHANGELOG = "https://api.example.com/changelog";
const writeNotes = () => uses("workspace_write", { path: "notes.md", content: NOTES });
/** A step that lists the workspace and expects a file that is not there: its result falls short. */
const expectsMissing = (id: string, overrides = {}) =>
  step(id, {
    tool: "workspace_list",
    completion: { text: "the changelog is there", expect: { contains: "changelog.md" } },
    ...overrides,
  });

describe("Plan-and-Execute replanning", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  it("repairs a step whose result is below its expectation, with its dependents, and completes", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const model = new ScriptedModel({
      plan: [
        submitsPlan([
          expectsMissing("find"),
          step("write", { tool: "workspace_write", dependsOn: ["find"] }),
        ]),
        submitsPlan([step("write-anyway", { tool: "workspace_write" })]),
      ],
      execute: [uses("workspace_list", {}), writeNotes()],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    await loop.run(goal.goalId);

    // Assess
    const done = await loop.goal(goal.goalId);
    expect(done.status).toBe("completed");
    expect(done.replans).toBe(1);
    const observed = await loop.eventsOf(goal.goalId, "plan.step.observed");
    expect(observed[0]).toMatchObject({ stepId: "find", outcome: "below_expectation" });
    const [revised] = await loop.eventsOf(goal.goalId, "plan.revised");
    expect(revised).toMatchObject({
      version: 2,
      strategy: "repair",
      trigger: "below_expectation",
      stepIds: ["find"],
      replaced: ["find", "write"],
      steps: ["write-anyway"],
    });
    expect(lastUserText(model.requestsFor("plan")[1])).toContain("Repair step find");
    expect(done.planState?.history).toEqual([
      expect.objectContaining({ version: 2, strategy: "repair", trigger: "below_expectation" }),
    ]);
  });

  it("skips a failed non-critical step without a plan call, and its dependents go on", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const model = new ScriptedModel({
      plan: [
        submitsPlan([
          expectsMissing("find", { critical: false }),
          step("write", { tool: "workspace_write", dependsOn: ["find"] }),
        ]),
      ],
      execute: [uses("workspace_list", {}), writeNotes()],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    await loop.run(goal.goalId);

    // Assess
    const done = await loop.goal(goal.goalId);
    expect(done.status).toBe("completed");
    expect(model.requestsFor("plan")).toHaveLength(1);
    expect(done.planState?.steps.map((s) => [s.id, s.status])).toEqual([
      ["find", "skipped"],
      ["write", "done"],
    ]);
    const [revised] = await loop.eventsOf(goal.goalId, "plan.revised");
    expect(revised).toMatchObject({ strategy: "skip", stepIds: ["find"] });
  });

  it("retries a step that failed recoverably (HTTP 503) once, then repairs it", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const fetch = fetchAnswering(503, "busy");
    const model = new ScriptedModel({
      plan: [
        submitsPlan([
          step("fetch", { tool: "http_request" }),
          step("write", { tool: "workspace_write", dependsOn: ["fetch"] }),
        ]),
        submitsPlan([step("write-from-objective", { tool: "workspace_write" })]),
      ],
      execute: [
        uses("http_request", { method: "GET", url: CHANGELOG }),
        uses("http_request", { method: "GET", url: CHANGELOG }),
        writeNotes(),
      ],
    });
    const loop = new PlanLoopDriver(table, model, PLAN_SETTINGS, fetch.fetch);

    // Act
    await loop.run(goal.goalId);

    // Assess
    expect((await loop.goal(goal.goalId)).status).toBe("completed");
    expect(fetch.calls).toEqual([CHANGELOG, CHANGELOG]);
    const observed = await loop.eventsOf(goal.goalId, "plan.step.observed");
    expect(observed.slice(0, 2)).toEqual([
      expect.objectContaining({
        stepId: "fetch",
        outcome: "recoverable_failure",
        errorName: "HttpStatus503",
        retry: true,
      }),
      expect.objectContaining({ stepId: "fetch", outcome: "recoverable_failure", retry: false }),
    ]);
    expect(await loop.eventsOf(goal.goalId, "plan.revised")).toEqual([
      expect.objectContaining({ strategy: "repair", trigger: "failed_step" }),
    ]);
    expect(lastUserText(model.requestsFor("execute")[1])).toContain(
      "Attempt 1 of this step ended recoverable_failure",
    );
  });

  it("cools down before a replan that follows a replan without any successful step", async () => {
    // Prepare
    const goal = await createPlanGoal(table);
    const model = new ScriptedModel({
      plan: [submitsPlan([expectsMissing("find")]), submitsPlan([expectsMissing("find-again")])],
      execute: [uses("workspace_list", {}), uses("workspace_list", {})],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    const answered = await loop.continue(await loop.load(goal.goalId), { stopAt: "replan_cooldown" });
    const cooldown = answered.find((answer) => answer.next === "replan_cooldown");

    // Assess
    expect(answered.filter((answer) => answer.next === "plan")).toHaveLength(2);
    expect(cooldown).toMatchObject({ next: "replan_cooldown", cooldownSeconds: 30 });
    expect((await loop.goal(goal.goalId)).planState?.pending).toMatchObject({
      cooldownSeconds: 30,
      strategy: "repair",
    });
  });

  it("stops a replan storm at maxReplans: the goal waits for a human decision on the limit", async () => {
    // Prepare
    const goal = await createPlanGoal(
      table,
      planSpec({ limits: { maxReplans: 1, maxNoProgressCycles: 10 } }),
    );
    const model = new ScriptedModel({
      plan: [submitsPlan([expectsMissing("find")]), submitsPlan([expectsMissing("find-again")])],
      execute: [uses("workspace_list", {}), uses("workspace_list", {})],
    });
    const loop = new PlanLoopDriver(table, model);

    // Act
    const answered = await loop.run(goal.goalId);
    const last = answered.at(-1);
    if (!last) throw new Error("no answer");
    await loop.requestApproval(last);

    // Assess
    expect(last.next).toBe("limit_decision");
    const waiting = await loop.goal(goal.goalId);
    expect(waiting).toMatchObject({ status: "waiting", waitingFor: { kind: "decision" }, replans: 2 });
    expect(await loop.eventsOf(goal.goalId, "limit.reached")).toEqual([
      expect.objectContaining({ limit: "maxReplans" }),
    ]);
    expect(model.requestsFor("plan")).toHaveLength(2);
  });

  it("replaces the remaining steps after a refinement, and replans globally after a pivot; injected context replans nothing", async () => {
    // Prepare
    const reconciled = JSON.stringify({ summary: "ok", keep: [], discard: [], add: [], restart: false });
    const run = async (type: "refinement" | "pivot" | "inject_context") => {
      const goal = await createPlanGoal(table);
      const model = new ScriptedModel({
        plan: [
          submitsPlan([
            step("list", { tool: "workspace_list" }),
            step("write", { tool: "workspace_write", dependsOn: ["list"] }),
          ]),
          submitsPlan([step("write-credits", { tool: "workspace_write" })]),
        ],
        execute: [uses("workspace_list", {}), writeNotes()],
        reconcile: [answers(reconciled)],
      });
      const loop = new PlanLoopDriver(table, model);
      // The first step is done and verified; the revision comes before the second one runs.
      const beforeFirst = await loop.continue(await loop.load(goal.goalId), { stopAt: "execute" });
      const verified = await loop.execute(lastOf(beforeFirst));
      // A pivot states its own checks (here the same ones): without them it would wait for a human.
      await loop.revise(
        goal.goalId,
        type === "pivot" ? { type, successChecks: goal.spec.successChecks } : { type },
      );
      await loop.continue(verified);
      return { loop, goal, model };
    };

    // Act
    const refined = await run("refinement");
    const pivoted = await run("pivot");
    const injected = await run("inject_context");

    // Assess
    expect((await refined.loop.goal(refined.goal.goalId)).status).toBe("completed");
    expect(await refined.loop.eventsOf(refined.goal.goalId, "plan.revised")).toEqual([
      expect.objectContaining({
        strategy: "replace_subplan",
        trigger: "human_revision",
        replaced: ["write"],
      }),
    ]);
    expect(lastUserText(refined.model.requestsFor("plan")[1])).toContain(
      "refinement by ana: Also credit the contributors",
    );
    expect(await pivoted.loop.eventsOf(pivoted.goal.goalId, "plan.revised")).toEqual([
      expect.objectContaining({ strategy: "global", trigger: "human_revision", replaced: ["list", "write"] }),
    ]);
    expect((await injected.loop.goal(injected.goal.goalId)).status).toBe("completed");
    expect(await injected.loop.eventsOf(injected.goal.goalId, "plan.revised")).toEqual([]);
    expect(injected.model.requestsFor("plan")).toHaveLength(1);
  });
});
