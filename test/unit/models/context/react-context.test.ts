import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  COMPACTION_STRIDE,
  DEFAULT_CONTEXT_SETTINGS,
} from "../../../../lambdas/core/models/context/context-settings";
import { promptTokens } from "../../../../lambdas/core/models/context/pack";
import type { ReasonSettings } from "../../../../lambdas/core/patterns/react/verify-and-reason";
import type { Message, ModelRequest, ModelTurn } from "../../../../lambdas/core/ports/model-client";
import {
  calls,
  conversationProblems,
  createGoal,
  failsWith,
  type GoalTable,
  lastUserText,
  ReactLoopDriver,
  reactSpec,
  type Scripted,
  ScriptedModel,
  SETTINGS,
  says,
  startGoalTable,
  writes,
} from "../../loop/support";

const HEAVY = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const FAST = "anthropic.claude-haiku-4-5-20251001-v1:0";
const MODELS = { heavyModelId: HEAVY, fastModelId: FAST };

/** Two checks: `notes` is satisfied early (step 2), `haiku` by the last step. */
function twoCheckSpec() {
  return reactSpec({
    successChecks: [
      {
        id: "notes",
        description: "notes.md lists the plan",
        verify: { kind: "artifact", path: "notes.md", contains: "plan" },
      },
      {
        id: "haiku",
        description: "out/haiku.md holds a haiku that mentions autumn",
        verify: { kind: "artifact", path: "out/haiku.md", contains: "autumn" },
      },
    ],
    limits: { maxSteps: 60, maxNoProgressCycles: 3 },
  });
}

/**
 * `count` reason turns: drafts of the haiku (each a new version of the file its check names, so
 * progress) with some reasoning text, notes.md at step 2, the haiku last.
 */
function longScript(count: number): ModelTurn[] {
  return Array.from({ length: count }, (_, index) => {
    const step = index + 1;
    if (step === count)
      return writes("out/haiku.md", "autumn wind at dusk\nleaves write their last letters\nto the open road");
    if (step === 2) return writes("notes.md", "the plan: draft, pick, write");
    const reasoning = `Draft ${step}: trying another image for the haiku, with a little more detail each time. `;
    return calls("workspace_write", { path: "out/haiku.md", content: `draft ${step}` }, reasoning.repeat(6));
  });
}

const summaries = (count: number): Scripted[] =>
  Array.from({ length: count }, (_, index) =>
    says(`Summary ${index}: drafts written, notes.md holds the plan.`),
  );

/** `turn` as a model that thinks gives it: a signed reasoning block first. */
function thinking(turn: ModelTurn, text: string): ModelTurn {
  const reasoning = { reasoningContent: { reasoningText: { text, signature: `signed:${text}` } } };
  return { ...turn, content: [reasoning, ...turn.content] };
}

const withoutCachePoints = (messages: readonly Message[]) =>
  messages.map((message) => ({
    ...message,
    content: message.content.filter((block) => !("cachePoint" in block)),
  }));

function toolUseIds(request: ModelRequest | undefined): string[] {
  return (request?.messages ?? []).flatMap((message) =>
    message.content.flatMap((block) => ("toolUse" in block ? [block.toolUse.toolUseId] : [])),
  );
}

describe("the context packer in the ReAct reason call", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  it("sends a byte-identical prefix (tools, instructions, goal block) on every call of a goal", async () => {
    // Prepare: checks get satisfied and progress notes change along the way.
    const goal = await createGoal(table, twoCheckSpec());
    const model = new ScriptedModel({ reason: longScript(6) });
    const loop = new ReactLoopDriver(table, model, { ...SETTINGS, models: MODELS });

    // Act
    await loop.run(goal.goalId);

    // Assess
    const requests = model.requestsFor("reason");
    expect(requests).toHaveLength(6);
    expect((await loop.goal(goal.goalId)).status).toBe("completed");
    const prefixes = requests.map((request) => JSON.stringify([request.tools, request.system]));
    expect(new Set(prefixes).size).toBe(1);
    expect(requests[0]?.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
    // Between compactions the prompt only grows at its end: each call starts with the whole previous
    // one (cache points aside), and marks where it ended, so it reads the previous call's cache.
    for (let index = 1; index < requests.length; index += 1) {
      const previous = withoutCachePoints(requests[index - 1]?.messages ?? []);
      const current = requests[index]?.messages ?? [];
      expect(withoutCachePoints(current.slice(0, previous.length))).toEqual(previous);
      expect(current[previous.length - 1]?.content.at(-1)).toEqual({ cachePoint: { type: "default" } });
      expect(current.at(-1)?.content.at(-1)).toEqual({ cachePoint: { type: "default" } });
      expect(conversationProblems(withoutCachePoints(current))).toEqual([]);
    }
    expect(lastUserText(requests.at(-1))).toContain("Satisfied checks: notes");
  });

  it("sends each turn back as the model gave it: every prompt is the previous one, its turn, and what followed", async () => {
    // Prepare
    const goal = await createGoal(table, twoCheckSpec());
    const turns = longScript(5).map((turn, index) => thinking(turn, `Thought ${index + 1}.`));
    const model = new ScriptedModel({ reason: turns });
    const loop = new ReactLoopDriver(table, model, { ...SETTINGS, models: MODELS });

    // Act
    await loop.run(goal.goalId);

    // Assess
    const requests = model.requestsFor("reason");
    expect((await loop.goal(goal.goalId)).status).toBe("completed");
    expect(requests).toHaveLength(5);
    for (let index = 1; index < requests.length; index += 1) {
      const previous = withoutCachePoints(requests[index - 1]?.messages ?? []);
      const current = withoutCachePoints(requests[index]?.messages ?? []);
      // Nothing before the previous turn changed, its last message (the state it answered) included
      expect(current.slice(0, previous.length)).toEqual(previous);
      // The turn follows verbatim: reasoning block first, text, the tool call with its full input
      expect(current[previous.length]).toEqual({ role: "assistant", content: turns[index - 1]?.content });
      expect(conversationProblems(current)).toEqual([]);
    }
    // The reasoning summaries reach the events and the record, never the signatures
    const done = await loop.goal(goal.goalId);
    expect(done.reasoningByRole?.reason?.summary).toBe("Thought 5.");
    const usage = await loop.eventsOf(goal.goalId, "model.usage");
    expect(usage.map((event) => event.reasoningSummary)).toEqual(
      turns.map((_, index) => `Thought ${index + 1}.`),
    );
    expect(JSON.stringify(usage)).not.toContain("signed:");
  });

  it("compacts old steps into a summarize call's summary, keeping the goal block and the latest evidence", async () => {
    // Prepare
    const goal = await createGoal(table, twoCheckSpec());
    const model = new ScriptedModel({ reason: longScript(30), summarize: summaries(10) });
    const settings: ReasonSettings = {
      ...SETTINGS,
      models: MODELS,
      context: { ...DEFAULT_CONTEXT_SETTINGS, budgetTokens: 2600, keepRecentSteps: 3 },
    };
    const loop = new ReactLoopDriver(table, model, settings);

    // Act
    await loop.run(goal.goalId, "r1", 200);

    // Assess
    const done = await loop.goal(goal.goalId);
    expect(done.status).toBe("completed");
    const summarize = model.requestsFor("summarize");
    expect(summarize.length).toBeGreaterThan(0);
    expect(summarize.map((request) => [request.call, request.modelId])).toEqual(
      summarize.map((_, index) => [index, FAST]),
    );
    expect(done.usageByRole.summarize?.modelCalls).toBe(summarize.length);
    expect(done.usage.modelCalls).toBe(30 + summarize.length);

    const reasons = model.requestsFor("reason");
    const first = reasons[0];
    const last = reasons.at(-1);
    // The goal block stays in the prefix, unchanged.
    expect(last?.system).toEqual(first?.system);
    expect(JSON.stringify(last?.system)).toContain("Objective: Write a haiku about autumn");
    // The oldest steps are gone, replaced by the latest summary; the latest steps are there verbatim.
    const opening = last?.messages[0]?.content[0];
    expect(opening && "text" in opening ? opening.text : "").toContain(`Summary ${summarize.length - 1}:`);
    const ids = toolUseIds(last);
    expect(ids).not.toContain(toolUseIds(reasons[1]).at(-1));
    expect(ids).toContain(toolUseIds(reasons.at(-2)).at(-1));
    // Evidence recorded by a compacted step still shows, from the goal record.
    expect(lastUserText(last)).toContain("Satisfied checks: notes");
    // The window never holds more than the kept steps plus one stride: prompts stay flat.
    for (const request of reasons) {
      expect(conversationProblems(request.messages)).toEqual([]);
      expect(toolUseIds(request).length).toBeLessThanOrEqual(3 + COMPACTION_STRIDE);
    }
    expect(promptTokens(last as ModelRequest).totalTokens).toBeLessThan(
      promptTokens(reasons[12] as ModelRequest).totalTokens * 1.2,
    );
  });

  it("pays a summarize call once and counts it once when the reason call after it fails and is retried", async () => {
    // Prepare: the 12th reason call (the first after a compaction) is throttled once.
    const goal = await createGoal(table, twoCheckSpec());
    const script: Scripted[] = longScript(14);
    const reason = [...script.slice(0, 11), failsWith("ThrottlingException", true), ...script.slice(11)];
    const model = new ScriptedModel({ reason, summarize: summaries(4) });
    const settings: ReasonSettings = {
      ...SETTINGS,
      models: MODELS,
      context: { ...DEFAULT_CONTEXT_SETTINGS, budgetTokens: 100_000, maxWindowSteps: 10, keepRecentSteps: 2 },
    };
    const loop = new ReactLoopDriver(table, model, settings);

    // Act: the first run stops on the throttled call, a retry of that step goes on.
    const failed = await loop.run(goal.goalId).catch((error: unknown) => error);
    const position = { goalId: goal.goalId, runId: "r1", iteration: 11, next: "verify" as const };
    let answer = await loop.verifyAndReason(position);
    while (answer.next === "act" || answer.next === "verify") {
      answer = answer.next === "act" ? await loop.act(answer) : await loop.verifyAndReason(answer);
    }

    // Assess
    expect(failed).toMatchObject({ name: "ThrottlingException" });
    const summarize = model.requestsFor("summarize");
    expect(summarize.map((request) => request.call)).toEqual([0]);
    const done = await loop.goal(goal.goalId);
    expect(done.status).toBe("completed");
    expect(done.usageByRole.summarize?.modelCalls).toBe(1);
    // The retry finds the summary its goal has not counted yet and shows the same window: the steps
    // that summary covers (read beside it, by the counted summaries' bound) are left out again.
    const reasons = model.requestsFor("reason");
    expect(reasons[12]).toEqual(reasons[11]);
    expect(lastUserText(reasons[12])).not.toBe("");
    expect(toolUseIds(reasons[12])).not.toContain(toolUseIds(reasons[8]).at(-1));
  });
});
