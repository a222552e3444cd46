import { describe, expect, it } from "vitest";
import type { GoalSpecInput } from "../../../lambdas/core/goal/goal-spec";
import {
  assertSameSubmission,
  FIRST_RUN_ID,
  type GoalIntakeInput,
  IdempotencyKeyReusedError,
  intakeGoal,
  SELECT_FAILED_NOTE,
  SELECT_FALLBACK_NOTE,
} from "../../../lambdas/core/intake/goal-intake";

const NOW = new Date("2026-03-01T12:00:00.000Z");

const spec = (overrides: Partial<GoalSpecInput> = {}): GoalSpecInput => ({
  objective: "Count the files",
  successChecks: [
    { id: "counted", description: "count.txt exists", verify: { kind: "artifact", path: "count.txt" } },
  ],
  ...overrides,
});

const intake = (body: unknown, options: Partial<GoalIntakeInput> = {}) =>
  intakeGoal({ body, goalId: "g-1", tenantId: "t-1", now: NOW, ...options });

describe("intakeGoal", () => {
  it("creates a running goal on run r1 with the requested pattern and a goal.created event", async () => {
    // Act
    const { record, events } = await intake(spec({ pattern: "react" }));

    // Assess
    expect(record).toMatchObject({
      goalId: "g-1",
      tenantId: "t-1",
      status: "running",
      runId: FIRST_RUN_ID,
      pattern: "react",
      patternReason: "requested",
      revision: 1,
      createdAt: NOW.toISOString(),
    });
    expect(events.map((event) => event.type)).toEqual(["goal.created"]);
  });

  it("applies the selector's rules for auto", async () => {
    // Act
    const { record } = await intake(spec({ hints: { procedure: ["build", "test"] } }));

    // Assess
    expect(record).toMatchObject({ pattern: "plan_execute", patternReason: "known procedure" });
  });

  it("records that the fallback stood when the select role should have decided", async () => {
    // Act
    const { record, events } = await intake(spec());

    // Assess
    expect(record.pattern).toBe("react");
    expect(record.patternReason).toContain(SELECT_FALLBACK_NOTE);
    expect(events[0]?.patternReason).toBe(record.patternReason);
  });

  it("says the select call failed when it was made and answered nothing", async () => {
    // Act
    const { record } = await intake(spec(), { select: async () => undefined });

    // Assess
    expect(record.pattern).toBe("react");
    expect(record.patternReason).toContain(SELECT_FAILED_NOTE);
    expect(record.patternReason).not.toContain(SELECT_FALLBACK_NOTE);
  });

  it("throws a ValidationError naming the bad fields", async () => {
    // Act + Assess
    await expect(intake({ ...spec(), limits: { maxSteps: -1 }, extra: 1 })).rejects.toThrow(
      expect.objectContaining({
        name: "ValidationError",
        issues: expect.arrayContaining([
          expect.objectContaining({ path: "limits.maxSteps" }),
          { path: "extra", message: "unknown field" },
        ]),
      }),
    );
  });

  it("refuses a models entry outside the allow-list, naming the role", async () => {
    // Act + Assess
    await expect(
      intake(spec({ models: { plan: "us.meta.llama-9" } }), { allowedModelIds: ["scripted:*", "m-heavy"] }),
    ).rejects.toThrow(
      expect.objectContaining({
        name: "ValidationError",
        issues: [expect.objectContaining({ path: "models.plan" })],
      }),
    );
    await expect(
      intake(spec({ models: { default: "scripted:x" } }), { allowedModelIds: ["scripted:*"] }),
    ).resolves.toBeDefined();
  });

  describe("thinking settings", () => {
    const TIERS = {
      heavyModelId: "global.anthropic.claude-sonnet-5-5",
      fastModelId: "global.anthropic.claude-haiku-5-5",
    };
    const ALLOWED = [TIERS.heavyModelId, TIERS.fastModelId, "scripted:*"];

    it("refuses a GoalSpec's thinking the role's model rejects, naming the field", async () => {
      // Act
      const failure = await intake(spec({ models: { thinking: { reason: { mode: "disabled" } } } }), {
        allowedModelIds: ALLOWED,
        tiers: TIERS,
      }).catch((error: unknown) => error);

      // Assess
      expect(failure).toMatchObject({
        name: "ValidationError",
        issues: [
          {
            path: "models.thinking.reason.mode",
            message: expect.stringMatching(/^'disabled' is refused by Claude Sonnet 5\.5/),
          },
        ],
      });
    });

    it("checks a role against the model the GoalSpec sends it to, and says when the deployment's setting is the problem", async () => {
      // Prepare: the deployment turns summarize's thinking off, which its fast model takes
      const tiers = { ...TIERS, thinking: { summarize: { mode: "disabled" as const } } };

      // Act
      const onHeavy = await intake(spec({ models: { summarize: TIERS.heavyModelId } }), {
        allowedModelIds: ALLOWED,
        tiers,
      }).catch((error: unknown) => error);
      const lowest = await intake(
        spec({ models: { summarize: TIERS.heavyModelId, thinking: { summarize: { mode: "lowest" } } } }),
        { allowedModelIds: ALLOWED, tiers },
      );

      // Assess
      expect(onHeavy).toMatchObject({
        issues: [
          {
            path: "models.thinking.summarize.mode",
            message: expect.stringContaining("the setting is the deployment's (goal-loops.config.json)"),
          },
        ],
      });
      expect(lowest.record.spec.models?.thinking).toEqual({ summarize: { mode: "lowest" } });
    });

    it("takes every default on every model, and a scripted model's lowest setting", async () => {
      // Act + Assess
      await expect(intake(spec(), { allowedModelIds: ALLOWED, tiers: TIERS })).resolves.toBeDefined();
      await expect(
        intake(
          spec({ models: { default: "scripted:x", thinking: { plan: { mode: "lowest", effort: "low" } } } }),
          {
            allowedModelIds: ALLOWED,
            tiers: TIERS,
          },
        ),
      ).resolves.toBeDefined();
    });
  });

  it("lets the select role decide when no rule applies, recording why and counting the call", async () => {
    // Prepare
    const turn = {
      modelId: "scripted:s",
      stopReason: "tool_use" as const,
      content: [],
      usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
    const select = async () => ({
      choice: {
        pattern: "reflexion" as const,
        reason: "chosen by the select role: polish",
        needsModel: false,
      },
      checkpoint: {
        key: { goalId: "g-1", runId: "r1", iteration: 0, role: "select" as const, ordinal: 0 },
        call: 0,
        turn,
        costUsd: 0,
        createdAt: NOW.toISOString(),
      },
    });

    // Act
    const { record, events } = await intake(spec(), { select });
    const byRule = await intake(spec({ hints: { exploratory: true } }), {
      select: () => Promise.reject(new Error("must not be called")),
    });

    // Assess
    expect(record).toMatchObject({
      pattern: "reflexion",
      patternReason: "chosen by the select role: polish",
    });
    expect(events.map((event) => event.type)).toEqual(["goal.created", "model.usage"]);
    expect(events[0]).toMatchObject({ pattern: "reflexion", patternReason: record.patternReason });
    expect(record.usageByRole.select).toMatchObject({ inputTokens: 100, modelCalls: 1 });
    expect(byRule.record).toMatchObject({ pattern: "react", patternReason: "exploratory" });
  });
});

describe("assertSameSubmission", () => {
  it("accepts the same spec, however its keys are ordered", async () => {
    // Prepare
    const existing = (await intake(spec({ constraints: ["no network"] }))).record;
    const { constraints, ...rest } = spec({ constraints: ["no network"] });
    const retried = (await intake({ constraints, ...rest })).record;

    // Act + Assess
    expect(() => assertSameSubmission(existing, retried)).not.toThrow();
  });

  it("refuses a different spec while the goal is at revision 1", async () => {
    // Prepare
    const existing = (await intake(spec())).record;
    const retried = (await intake(spec({ objective: "Count the folders" }))).record;

    // Act + Assess
    expect(() => assertSameSubmission(existing, retried)).toThrow(IdempotencyKeyReusedError);
  });

  it("accepts a late retry of a goal a human has revised since", async () => {
    // Prepare
    const created = (await intake(spec())).record;
    const revised = { ...created, revision: 2, spec: { ...created.spec, objective: "Count the folders" } };

    // Act + Assess
    const retried = (await intake(spec())).record;
    expect(() => assertSameSubmission(revised, retried)).not.toThrow();
  });
});
