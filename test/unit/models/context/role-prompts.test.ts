import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalRecord, QueuedRevision } from "../../../../lambdas/core/goal/goal-record";
import { parseGoalSpec } from "../../../../lambdas/core/goal/goal-spec";
import { selectRequest } from "../../../../lambdas/core/intake/select-call";
import { reconcileRequest } from "../../../../lambdas/core/loop/revisions/reconcile-prompt";
import { DEFAULT_CONTEXT_SETTINGS } from "../../../../lambdas/core/models/context/context-settings";
import { stableGoalBlock } from "../../../../lambdas/core/models/context/goal-prefix";
import { countTokens } from "../../../../lambdas/core/models/context/tokenizer";
import type { ModelChoice } from "../../../../lambdas/core/models/model-thinking";
import type { PlanExecuteSettings } from "../../../../lambdas/core/patterns/plan-execute/plan-execute-deps";
import { SUBMIT_PLAN_TOOL } from "../../../../lambdas/core/patterns/plan-execute/plan-prompt";
import { LESSONS_HEADING } from "../../../../lambdas/core/patterns/reflexion/attempt-prompt";
import type { ReflexionSettings } from "../../../../lambdas/core/patterns/reflexion/reflexion-deps";
import type { ModelRequest, ModelTurn } from "../../../../lambdas/core/ports/model-client";
import {
  calmHaikuJudgedSpec,
  createGoal,
  type GoalTable,
  lastUserText,
  newGoal,
  ReactLoopDriver,
  reactSpec,
  ScriptedModel,
  SETTINGS,
  says,
  startGoalTable,
  T0,
  writes,
} from "../../loop/support";
import {
  createPlanGoal,
  fetchAnswering,
  PLAN_SETTINGS,
  PlanLoopDriver,
  planSpec,
  replanScript,
  step,
  submitsPlan,
  uses,
} from "../../patterns/plan-execute/support";
import {
  createReflexionGoal,
  REFLEXION_SETTINGS,
  ReflexionLoopDriver,
  reflexionSpec,
} from "../../patterns/reflexion/support";

const HEAVY = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const FAST = "anthropic.claude-haiku-4-5-20251001-v1:0";
const MODELS = { heavyModelId: HEAVY, fastModelId: FAST };
const CACHE_POINT = { cachePoint: { type: "default" } };
/** A model with no thinking setting: these prompts' layout does not depend on it. */
const unthinking = (modelId: string): ModelChoice => ({ modelId, thinking: { allowanceTokens: 0 } });
const NOTES = "# Release notes\n\nVersion 2.0 ships faster loops.";
const CHANGELOG = "https://api.example.com/changelog";

/** What Bedrock caches: the tools, then the system blocks up to and including the cache point. */
function cachedPrefix(request: ModelRequest | undefined): string {
  const system = request?.system ?? [];
  const end = system.findIndex((block) => "cachePoint" in block);
  return JSON.stringify({ tools: request?.tools ?? [], system: end < 0 ? system : system.slice(0, end + 1) });
}

/** Two or more calls of one role: the same cached prefix, ending in a cache point, and different questions. */
function expectSharedPrefix(requests: readonly ModelRequest[], minimum = 2): void {
  expect(requests.length).toBeGreaterThanOrEqual(minimum);
  for (const request of requests) {
    expect(request.system.at(-1)).toEqual(CACHE_POINT);
    expect(request.messages.flatMap((message) => message.content)).not.toContainEqual(CACHE_POINT);
  }
  expect(new Set(requests.map(cachedPrefix)).size).toBe(1);
  expect(new Set(requests.map(lastUserText)).size).toBe(requests.length);
}

function aRecord(spec = reactSpec()): GoalRecord {
  return newGoal(spec, { goalId: "g-roles" }).record;
}

describe("every model call's prompt in the packer's layout", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  it("plan and execute: one prefix per role across a replan, the plan state and step after the cache point", async () => {
    // Prepare: the first executor answer is new information, so the planner is called a second time.
    const goal = await createPlanGoal(table);
    const model = new ScriptedModel(replanScript(NOTES));
    const settings: PlanExecuteSettings = { ...PLAN_SETTINGS, models: MODELS };
    const loop = new PlanLoopDriver(table, model, settings);

    // Act
    await loop.run(goal.goalId);

    // Assess
    expect((await loop.goal(goal.goalId)).status).toBe("completed");
    const plans = model.requestsFor("plan");
    expectSharedPrefix(plans);
    expect(plans.map((request) => request.tools?.map((tool) => tool.name))).toEqual([
      [SUBMIT_PLAN_TOOL],
      [SUBMIT_PLAN_TOOL],
    ]);
    expect(lastUserText(plans[1])).toContain("no changelog URL");
    expect(lastUserText(plans[1])).toContain("Current plan (version 1):");
    const executes = model.requestsFor("execute");
    expectSharedPrefix(executes);
    expect(executes[0]?.system[0]).toEqual({ text: expect.stringContaining("You execute ONE step") });
    expect(lastUserText(executes[1])).toContain("Plan step write-direct");
  });

  it("execute: a dependency's large tool result reaches the next step bounded, never inlined", async () => {
    // Prepare: the fetched changelog is far above the packer's tool result bound.
    const marker = "END-OF-CHANGELOG";
    const body = `${"2.0: a change worth a line in the changelog\n".repeat(3000)}${marker}`;
    expect(countTokens(body)).toBeGreaterThan(DEFAULT_CONTEXT_SETTINGS.toolResultTokens);
    const fetch = fetchAnswering(200, body);
    const goal = await createPlanGoal(table, planSpec());
    const model = new ScriptedModel({
      plan: [
        submitsPlan([
          step("fetch", { tool: "http_request" }),
          step("write", { tool: "workspace_write", dependsOn: ["fetch"] }),
        ]),
      ],
      execute: [
        uses("http_request", { method: "GET", url: CHANGELOG }),
        uses("workspace_write", { path: "notes.md", content: NOTES }),
      ],
    });
    const loop = new PlanLoopDriver(table, model, { ...PLAN_SETTINGS, models: MODELS }, fetch.fetch);

    // Act
    await loop.run(goal.goalId);

    // Assess
    expect((await loop.goal(goal.goalId)).status).toBe("completed");
    const executes = model.requestsFor("execute");
    expectSharedPrefix(executes);
    const prompt = JSON.stringify(executes[1]?.messages);
    expect(lastUserText(executes[1])).toContain("Results of the steps it depends on:");
    expect(prompt).not.toContain(marker);
    expect(countTokens(prompt)).toBeLessThan(DEFAULT_CONTEXT_SETTINGS.toolResultTokens);
  });

  it("attempt, evaluate and reflect: one prefix per role across attempts, lessons after the cache point", async () => {
    // Prepare: the first attempt also reads back a large file; no later prompt inlines it.
    const marker = "END-OF-DRAFT";
    const big = `${"A long draft line about the 2.0 release.\n".repeat(3000)}${marker}`;
    const readsBack: ModelTurn = {
      ...writes("draft.md", big),
      content: [
        { toolUse: { toolUseId: "w-1", name: "workspace_write", input: { path: "draft.md", content: big } } },
        { toolUse: { toolUseId: "r-1", name: "workspace_read", input: { path: "draft.md" } } },
      ],
    };
    const lessons = [
      "The note named no upgrade step; the next attempt must tell users how to upgrade.",
      "It listed features but still no command; include the exact npm install command.",
    ];
    const goal = await createReflexionGoal(table, reflexionSpec());
    const model = new ScriptedModel({
      attempt: [
        readsBack,
        writes("note.md", "Version 2.0 is out with faster loops."),
        writes("note.md", "Version 2.0 is out. Upgrade with: npm install goal-loops@2"),
      ],
      evaluate: [says("FAIL: no upgrade step."), says("FAIL: still no command."), says("PASS")],
      reflect: lessons.map((lesson) => says(lesson)),
    });
    const settings: ReflexionSettings = { ...REFLEXION_SETTINGS, models: MODELS };
    const loop = new ReflexionLoopDriver(table, model, settings);

    // Act
    await loop.run(goal.goalId);

    // Assess
    expect((await loop.goal(goal.goalId)).status).toBe("completed");
    const attempts = model.requestsFor("attempt");
    expectSharedPrefix(attempts, 3);
    expect(lastUserText(attempts[0])).toContain(LESSONS_HEADING);
    for (const lesson of lessons) expect(lastUserText(attempts[2])).toContain(lesson);
    for (const request of attempts.slice(1)) {
      const prompt = JSON.stringify(request.messages);
      expect(prompt).not.toContain(marker);
      expect(countTokens(prompt)).toBeLessThan(DEFAULT_CONTEXT_SETTINGS.toolResultTokens);
    }
    expectSharedPrefix(model.requestsFor("evaluate"), 3);
    expectSharedPrefix(model.requestsFor("reflect"), 2);
    expect(lastUserText(model.requestsFor("reflect")[1])).toContain(lessons[0]);
  });

  it("judge: one prefix across verdicts, the check status and evidence after the cache point", async () => {
    // Prepare
    const goal = await createGoal(table, calmHaikuJudgedSpec());
    const model = new ScriptedModel({
      reason: [
        writes("out/haiku.md", "storm! thunder! crash!"),
        writes("out/haiku.md", "still pond at dusk"),
      ],
      judge: [says("FAIL - loud."), says("PASS - quiet imagery.")],
    });
    const loop = new ReactLoopDriver(table, model, { ...SETTINGS, models: MODELS });

    // Act
    await loop.run(goal.goalId);

    // Assess
    expect((await loop.goal(goal.goalId)).status).toBe("completed");
    const judges = model.requestsFor("judge");
    expectSharedPrefix(judges);
    expect(lastUserText(judges[1])).toContain("still pond at dusk");
    expect(lastUserText(judges[1])).toContain("Success checks not yet satisfied: tone");
  });

  it("reconcile: the goal's progress and finished work move after the cache point, the prefix stays", () => {
    // Prepare: the same goal early and after some work.
    const early = aRecord();
    const later: GoalRecord = {
      ...early,
      steps: 4,
      progressNotes: ["step 1: wrote notes.md", "step 2: drafted the haiku"],
      pendingCorrections: [
        { revisionId: "rev-0", revision: 2, content: "Use a calmer tone.", requestedAt: T0.toISOString() },
      ],
    };
    const revision: QueuedRevision = {
      revisionId: "rev-1",
      type: "inject_context",
      content: "Mention the maple tree.",
      requestedBy: "human",
      requestedAt: T0.toISOString(),
    };

    // Act
    const first = reconcileRequest({ record: early, revision, model: unthinking(HEAVY), call: 0 });
    const second = reconcileRequest({ record: later, revision, model: unthinking(HEAVY), call: 0 });
    const scripted = reconcileRequest({
      record: later,
      revision,
      model: unthinking("scripted:fixture"),
      call: 0,
    });

    // Assess
    expectSharedPrefix([first, second]);
    expect(first.system).toEqual([
      { text: expect.stringContaining("A human revised the goal below") },
      { text: stableGoalBlock(early) },
      CACHE_POINT,
    ]);
    expect(lastUserText(second)).toContain("step 2: drafted the haiku");
    expect(lastUserText(second)).toContain("Use a calmer tone.");
    expect(scripted.system.some((block) => "cachePoint" in block)).toBe(false);
    expect(scripted.system).toEqual(second.system.slice(0, -1));
  });

  it("select: the instructions are the prefix (no goal record yet), cached only on models that cache", () => {
    // Prepare
    const one = parseGoalSpec(reactSpec());
    const other = parseGoalSpec(planSpec());

    // Act
    const first = selectRequest(one, "g-1", unthinking(FAST), 0);
    const retried = selectRequest(other, "g-2", unthinking(FAST), 1);
    const local = selectRequest(one, "g-1", unthinking("local:qwen"), 0);

    // Assess
    expectSharedPrefix([first, retried]);
    expect(first.system).toHaveLength(2);
    expect(lastUserText(first)).toContain("Objective: Write a haiku about autumn");
    expect(first.tools?.map((tool) => tool.name)).toEqual(["choose_pattern"]);
    expect(local.system).toEqual(first.system.slice(0, -1));
  });
});
