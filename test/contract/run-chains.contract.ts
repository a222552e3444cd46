import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalSpecInput, Pattern } from "../../lambdas/core/goal/goal-spec";
import type { LoopSettings } from "../../lambdas/core/loop/loop-deps";
import type { ModelRole } from "../../lambdas/core/models/model-roles";
import type { ModelTurn } from "../../lambdas/core/ports/model-client";
import type { StartBackend } from "../support/dynamo-backends";
import { MortalStore, RunChainWorld, type Takeover } from "../support/run-chain-world";
import {
  createPatternGoal,
  type GoalTable,
  type LoopDriver,
  ReactLoopDriver,
  ScriptedModel,
  SETTINGS,
  startGoalTable,
} from "../unit/loop/support";
import { PLAN_SETTINGS, PlanLoopDriver, step, submitsPlan } from "../unit/patterns/plan-execute/support";
import { REFLEXION_SETTINGS, ReflexionLoopDriver } from "../unit/patterns/reflexion/support";

/**
 * A goal's runs may be taken over any number of times, in any order (a restart re-attaches it, a
 * failed run is retried in a new run or redriven), while it waits for a human or in the middle of a
 * step, and the human may decide before, between or after the take-overs. None of it may show in
 * what the goal does: it ends as it ends with no take-over — the same events apart from the runs'
 * own (re-attached, started, failed, retried, redriven), the same usage, model calls, tool calls,
 * deliveries and files. Checked for each pattern on the goal store's real backends.
 */

const USAGE = { inputTokens: 120, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 };
const MODEL_ID = "scripted:run-chains";

/** A turn with fixed tool-use ids, so two runs of one script log the same calls. */
function turn(text: string, calls: readonly [string, string, Record<string, string>][] = []): ModelTurn {
  return {
    modelId: MODEL_ID,
    stopReason: calls.length > 0 ? "tool_use" : "end_turn",
    content: [
      ...(text === "" ? [] : [{ text }]),
      ...calls.map(([toolUseId, name, input]) => ({ toolUse: { toolUseId, name, input } })),
    ],
    usage: USAGE,
  };
}

const NOTIFY_INPUT = { channel: "ops", message: "release 2.0 is out" };
const TOLD = {
  id: "told",
  description: "ops were told",
  verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
} as const;
const TOOLS = ["workspace_write", "workspace_read", "notify"];

/** One pattern's goal, its scripted model, and its loop steps on a table. */
interface PatternCase {
  readonly pattern: Exclude<Pattern, "auto">;
  readonly spec: GoalSpecInput;
  readonly script: () => Partial<Record<ModelRole, readonly ModelTurn[]>>;
  readonly driver: (
    table: GoalTable,
    model: ScriptedModel,
    continueAsNewAfter: number,
  ) => LoopDriver<LoopSettings>;
}

const CASES: readonly PatternCase[] = [
  {
    pattern: "react",
    spec: {
      objective: "Draft the release note, tell ops, then write the final note",
      pattern: "react",
      tools: TOOLS,
      successChecks: [
        {
          id: "note",
          description: "note.md is final",
          verify: { kind: "artifact", path: "note.md", contains: "final" },
        },
        TOLD,
      ],
    },
    script: () => ({
      reason: [
        turn("A draft first.", [["r-1", "workspace_write", { path: "draft.md", content: "draft" }]]),
        turn("Tell ops.", [["r-2", "notify", NOTIFY_INPUT]]),
        turn("The final note.", [["r-3", "workspace_write", { path: "note.md", content: "final note" }]]),
        turn("Done."),
      ],
    }),
    driver: (table, model, continueAsNewAfter) =>
      new ReactLoopDriver(table, model, { ...SETTINGS, continueAsNewAfter }),
  },
  {
    pattern: "plan_execute",
    spec: {
      objective: "Tell ops, then write one, two and three",
      pattern: "plan_execute",
      tools: TOOLS,
      successChecks: [
        { id: "three", description: "three.md is written", verify: { kind: "artifact", path: "three.md" } },
        TOLD,
      ],
    },
    script: () => ({
      plan: [
        submitsPlan([
          step("tell", { tool: "notify" }),
          step("one", { tool: "workspace_write", dependsOn: ["tell"] }),
          step("two", { tool: "workspace_write", dependsOn: ["one"] }),
          step("three", { tool: "workspace_write", dependsOn: ["two"] }),
        ]),
      ],
      execute: [
        turn("", [["e-1", "notify", NOTIFY_INPUT]]),
        ...["one", "two", "three"].map((name, index) =>
          turn("", [[`e-${index + 2}`, "workspace_write", { path: `${name}.md`, content: name }]]),
        ),
      ],
    }),
    driver: (table, model, continueAsNewAfter) =>
      new PlanLoopDriver(table, model, { ...PLAN_SETTINGS, continueAsNewAfter }),
  },
  {
    pattern: "reflexion",
    spec: {
      objective: "Write an actionable release note to note.md and tell ops",
      pattern: "reflexion",
      tools: TOOLS,
      successChecks: [
        {
          id: "actionable",
          description: "note.md tells users how to upgrade",
          verify: { kind: "model_judge", rubric: "PASS only if the note names the upgrade command" },
        },
        TOLD,
      ],
    },
    script: () => ({
      attempt: [
        turn("", [["a-1", "workspace_write", { path: "note.md", content: "2.0 is out." }]]),
        turn("", [
          ["a-2", "workspace_write", { path: "note.md", content: "2.0 is out: npm install goal-loops@2" }],
          ["a-3", "notify", NOTIFY_INPUT],
        ]),
      ],
      evaluate: [turn("FAIL: no upgrade command."), turn("PASS: names npm install.")],
      reflect: [turn("Name the upgrade command.")],
    }),
    driver: (table, model, continueAsNewAfter) =>
      new ReflexionLoopDriver(table, model, { ...REFLEXION_SETTINGS, continueAsNewAfter }),
  },
];

/** Events a run makes about itself: a take-over adds them, and nothing else may differ. */
const RUN_EVENTS = new Set(["run.reattached", "run.started", "goal.failed", "goal.retried", "run.redriven"]);

/**
 * Drops the fields that name a run, a sequence number or a time, and hashes (a notify's result
 * hashes its message id, which its goal's id makes; files are compared by content).
 */
function withoutRunsAndTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutRunsAndTimes);
  if (value === null || typeof value !== "object") return value;
  const dropped = (key: string) =>
    ["runId", "previousRunId", "seq", "at"].includes(key) || key.endsWith("At") || /sha256$/i.test(key);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !dropped(key))
      .map(([key, field]) => [key, withoutRunsAndTimes(field)]),
  );
}

/**
 * `value` with the goal's id, its approvals' ids (numbered in order of appearance), its notify
 * messages' ids (its goal's id makes them) and instants in text made the same for any two goals:
 * what is left is what the goal did.
 */
function comparable<T>(value: T, goalId: string): T {
  const approvals = new Map<string, string>();
  const text = JSON.stringify(withoutRunsAndTimes(value))
    .replaceAll(goalId, "<goal>")
    .replace(/ap-<goal>-\d+/g, (id) => {
      if (!approvals.has(id)) approvals.set(id, `<approval ${approvals.size + 1}>`);
      return approvals.get(id) ?? id;
    })
    .replace(/notify-[0-9a-f]{64}/g, "<notify message>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");
  return JSON.parse(text) as T;
}

/** What a goal did, as anyone could observe it once it ended. */
async function outcomeOf(driver: LoopDriver<LoopSettings>, goalId: string, model: ScriptedModel) {
  const record = await driver.goal(goalId);
  const events = (await driver.events(goalId)).filter((event) => !RUN_EVENTS.has(event.type));
  const { outbox, workspace } = driver.table.adapters;
  const files = await Promise.all(
    (await workspace.listFiles(goalId)).map(async ({ path }) => [
      path,
      (await workspace.readFile(goalId, path))?.content,
    ]),
  );
  const requests: Record<string, number> = {};
  for (const request of model.requests) requests[request.role] = (requests[request.role] ?? 0) + 1;
  return comparable(
    {
      status: record.status,
      steps: record.steps,
      usage: record.usage,
      usageByRole: record.usageByRole,
      evidence: record.evidence.map(({ checkId, kind, strength }) => ({ checkId, kind, strength })),
      requests,
      deliveries: (await outbox.listMessages(goalId)).map(({ channel, message }) => ({ channel, message })),
      files: Object.fromEntries(files),
      events,
    },
    goalId,
  );
}

/** A chain: how the first run dies (if it does), the take-overs after it, and when the human decides. */
interface Chain {
  readonly firstDiesAt: number | undefined;
  readonly takeovers: readonly { how: Takeover; loads: boolean; diesAt: number | undefined }[];
  /** After how many take-overs the decision comes; `whileWaiting`: to a live wait (else to a dead one). */
  readonly decision: { readonly after: number; readonly whileWaiting: boolean };
  readonly continueAsNewAfter: number;
}

const chains = (parkedMidStep: boolean): fc.Arbitrary<Chain> =>
  fc.record({
    firstDiesAt: parkedMidStep ? fc.integer({ min: 1, max: 24 }) : fc.constant(undefined),
    takeovers: fc.array(
      fc.record({
        how: parkedMidStep
          ? fc.constantFrom<Takeover>("reattach", "retry", "redrive")
          : fc.constant<Takeover>("reattach"),
        loads: fc.boolean(),
        diesAt: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
      }),
      { maxLength: 4 },
    ),
    decision: fc.record({ after: fc.nat({ max: 4 }), whileWaiting: fc.boolean() }),
    continueAsNewAfter: fc.constantFrom(1, 50),
  });

/** Runs `chain` on a new goal of `kase`; returns its outcome once it ended. */
async function runChain(table: GoalTable, kase: PatternCase, chain: Chain) {
  const model = new ScriptedModel(kase.script());
  const mortal = new MortalStore(table.adapters.goals);
  const driver = kase.driver(
    { ...table, adapters: { ...table.adapters, goals: mortal.goals } },
    model,
    chain.continueAsNewAfter,
  );
  const goal = await createPatternGoal(table, kase.spec, kase.pattern);
  const world = new RunChainWorld(driver, mortal, table.adapters.goals, goal.goalId);
  await world.start(chain.firstDiesAt);
  const decideAt = Math.min(chain.decision.after, chain.takeovers.length);
  for (const [index, takeover] of [
    ...chain.takeovers.entries(),
    [chain.takeovers.length, undefined] as const,
  ]) {
    if (index === decideAt) {
      if (!chain.decision.whileWaiting) world.kill();
      await world.decide();
    }
    if (takeover) await world.takeOver(takeover.how, { loads: takeover.loads, dieAt: takeover.diesAt });
  }
  await world.finish();
  return outcomeOf(driver, goal.goalId, model);
}

const restart = (loads: boolean, diesAt?: number) => ({ how: "reattach" as const, loads, diesAt });

/** Chains every backend runs besides the random ones: the decision before, between and after 4 restarts. */
const CORNERS: Readonly<Record<"approval" | "midStep", readonly Chain[]>> = {
  approval: [
    {
      firstDiesAt: undefined,
      takeovers: [restart(true), restart(true)],
      decision: { after: 2, whileWaiting: true },
      continueAsNewAfter: 50,
    },
    {
      firstDiesAt: undefined,
      takeovers: [restart(true), restart(false), restart(true, 2), restart(true)],
      decision: { after: 2, whileWaiting: false },
      continueAsNewAfter: 50,
    },
    {
      firstDiesAt: undefined,
      takeovers: [restart(false), restart(true), restart(true), restart(true)],
      decision: { after: 0, whileWaiting: false },
      continueAsNewAfter: 1,
    },
  ],
  midStep: [
    {
      firstDiesAt: 4,
      takeovers: [restart(true, 1), { how: "retry", loads: true, diesAt: 3 }, restart(true)],
      decision: { after: 3, whileWaiting: true },
      continueAsNewAfter: 50,
    },
    {
      firstDiesAt: 7,
      takeovers: [
        { how: "redrive", loads: true, diesAt: 2 },
        restart(false),
        { how: "retry", loads: true, diesAt: 1 },
        restart(true, 4),
      ],
      decision: { after: 4, whileWaiting: true },
      continueAsNewAfter: 1,
    },
    {
      firstDiesAt: 10,
      takeovers: [restart(true, 6), restart(true, 3), restart(true, 5), restart(true)],
      decision: { after: 4, whileWaiting: true },
      continueAsNewAfter: 50,
    },
  ],
};

/**
 * The property suite for one backend: per pattern, a goal parked on its approval and one whose run
 * dies mid-step, through seeded random chains of 0..4 take-overs (`runs` each) and, with `corners`,
 * the CORNERS chains. `npm test` runs them seeded; RUN_CHAINS_SEED and RUN_CHAINS_RUNS explore more.
 */
export function describeRunChainProperties(
  backendName: string,
  start: StartBackend,
  options: { readonly runs: number; readonly corners: boolean },
): void {
  const { corners } = options;
  const runs = Number(process.env.RUN_CHAINS_RUNS ?? options.runs);
  const seed = Number(process.env.RUN_CHAINS_SEED ?? 28);
  describe(`a goal through any chain of runs [${backendName}]`, () => {
    let table: GoalTable;
    beforeAll(async () => {
      table = await startGoalTable(start);
    });
    afterAll(() => table?.stop());

    describe.each(CASES)("$pattern", (kase) => {
      const baselines = new Map<number, Awaited<ReturnType<typeof runChain>>>();
      /** The goal with no take-over and no death: approved the moment it asks. */
      async function baseline(continueAsNewAfter: number) {
        const known = baselines.get(continueAsNewAfter);
        if (known) return known;
        const outcome = await runChain(table, kase, {
          firstDiesAt: undefined,
          takeovers: [],
          decision: { after: 0, whileWaiting: true },
          continueAsNewAfter,
        });
        baselines.set(continueAsNewAfter, outcome);
        return outcome;
      }

      it.each([
        ["parked on its approval", false, CORNERS.approval],
        ["parked mid-step", true, CORNERS.midStep],
      ] as const)(
        "ends as with no take-over when %s",
        async (_name, parkedMidStep, cornerChains) => {
          // Prepare: the goal as it ends untouched
          for (const after of [1, 50]) expect((await baseline(after)).status).toBe("completed");

          // Act + Assess: every chain ends the same
          await fc.assert(
            fc.asyncProperty(chains(parkedMidStep), async (chain) => {
              const outcome = await runChain(table, kase, chain);
              expect(outcome).toEqual(await baseline(chain.continueAsNewAfter));
            }),
            {
              seed,
              // fast-check counts the examples among the runs.
              numRuns: runs + (corners ? cornerChains.length : 0),
              endOnFailure: true,
              examples: corners ? cornerChains.map((chain) => [chain] as [Chain]) : [],
            },
          );
        },
        // Seconds per chain on a busy 2-core machine, with room to spare.
        Math.max(180_000, (runs + CORNERS.midStep.length) * 20_000),
      );
    });
  });
}
