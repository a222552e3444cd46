import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { GoalChange } from "../../../lambdas/core/goal/goal-change";
import { fail, pause, terminate } from "../../../lambdas/core/goal/goal-lifecycle";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import { GoalSnapshotSchema } from "../../../lambdas/core/goal/goal-record";
import { requestPause } from "../../../lambdas/core/goal/human-pause";
import { aGoalSpec, apiEvent, aTenant, bodyOf, buildApi, NOW, suiteStoreBackend } from "./api-harness";

/** A change that changes nothing (a request already recorded). */
function noChange(record: GoalRecord): GoalChange {
  return { record, events: [] };
}

describe("goal control routes (revisions, directive, pause, resume, retry, limits, cancel)", () => {
  const backend = suiteStoreBackend();

  async function aGoal(tenant: string): Promise<string> {
    const { api } = buildApi(backend.store);
    const result = await api(
      apiEvent({ method: "POST", path: "/goals", body: aGoalSpec(), accountId: tenant }),
    );
    return String(bodyOf(result).goalId);
  }

  async function change(goalId: string, how: (record: GoalRecord) => GoalChange) {
    const stored = await backend.store.getGoal(goalId);
    if (!stored) throw new Error("goal vanished");
    const next = how(stored.record);
    await backend.store.commit(next.record, stored.version, next.events);
  }

  function post(tenant: string, path: string, body?: unknown) {
    const built = buildApi(backend.store);
    return built.api(apiEvent({ method: "POST", path, body, accountId: tenant })).then((result) => ({
      result,
      events: built.publisher.events,
    }));
  }

  describe("POST /goals/{goalId}/revisions", () => {
    it("publishes Revision Requested and answers 202 with the revision id", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/revisions`, {
        type: "redirect",
        content: "  Write about winter instead  ",
        reason: "season changed",
      });

      // Assess
      expect(result.statusCode).toBe(202);
      const { revisionId } = bodyOf(result);
      expect(revisionId).toMatch(/^rev-/);
      expect(events).toEqual([
        {
          detailType: "Revision Requested",
          detail: {
            goalId,
            revisionId,
            type: "redirect",
            content: "Write about winter instead",
            reason: "season changed",
            requestedBy: `arn:aws:iam::${tenant}:user/tester`,
            channel: "api",
            requestedAt: NOW.toISOString(),
          },
        },
      ]);
      // Queued by the resume handler, not here.
      expect((await backend.store.getGoal(goalId))?.record.inbox).toEqual([]);
    });

    it.each([
      [{ type: "rename", content: "x" }, "type"],
      [{ type: "redirect" }, "content"],
      [{ type: "redirect", content: "x", extra: 1 }, "extra"],
      [
        {
          type: "add_constraint",
          content: "x",
          successChecks: [{ id: "a", description: "a", verify: { kind: "artifact", path: "a.md" } }],
        },
        "successChecks",
      ],
    ])("answers 400 ValidationError with the bad field's path for %j", async (body, path) => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/revisions`, body);

      // Assess
      expect(result.statusCode).toBe(400);
      const error = bodyOf(result).error as { code: string; issues: { path: string }[] };
      expect(error.code).toBe("ValidationError");
      expect(error.issues.map((issue) => issue.path)).toContain(path);
      expect(events).toEqual([]);
    });

    it("answers 409 InvalidStatus for a final goal", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);
      await change(goalId, (record) => terminate(record, { kind: "policy", detail: "t", message: "t" }, NOW));

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/revisions`, {
        type: "redirect",
        content: "x",
      });

      // Assess
      expect(result.statusCode).toBe(409);
      expect(bodyOf(result).error).toMatchObject({ code: "InvalidStatus", status: "terminated" });
      expect(events).toEqual([]);
    });
  });

  describe("POST /goals/{goalId}/directive", () => {
    it("answers /goal status with the snapshot", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/directive`, { text: "/goal status" });

      // Assess
      expect(result.statusCode).toBe(200);
      expect(z.strictObject(GoalSnapshotSchema.shape).parse(bodyOf(result))).toMatchObject({
        goalId,
        status: "running",
      });
      expect(events).toEqual([]);
    });

    it.each([
      ["/goal redirect Write about winter", "redirect", "Write about winter"],
      ["add-constraint Keep it under 12 words", "add_constraint", "Keep it under 12 words"],
    ])("turns '%s' into a %s revision (202)", async (text, type, content) => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/directive`, { text });

      // Assess
      expect(result.statusCode).toBe(202);
      expect(events).toMatchObject([
        {
          detailType: "Revision Requested",
          detail: { goalId, type, content, revisionId: bodyOf(result).revisionId },
        },
      ]);
    });

    it("answers a bad directive with 400 DirectiveError naming the problem and the valid forms", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/directive`, {
        text: "/goal launch rockets",
      });

      // Assess
      expect(result.statusCode).toBe(400);
      const error = bodyOf(result).error as { code: string; message: string };
      expect(error.code).toBe("DirectiveError");
      expect(error.message).toContain("unknown subcommand 'launch'");
      expect(error.message).toContain("/goal add-constraint <text>");
      expect(events).toEqual([]);
    });
  });

  describe("POST /goals/{goalId}/resume", () => {
    it("publishes Resume Requested for a paused goal (202)", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);
      await change(goalId, (record) =>
        pause(record, { kind: "no_progress", detail: "n", message: "n" }, NOW),
      );

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/resume`);

      // Assess
      expect(result.statusCode).toBe(202);
      expect(events).toEqual([
        {
          detailType: "Resume Requested",
          detail: {
            goalId,
            requestedBy: `arn:aws:iam::${tenant}:user/tester`,
            channel: "api",
            requestedAt: NOW.toISOString(),
          },
        },
      ]);
    });

    it("answers 409 InvalidStatus with the reason for a goal that is not paused", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/resume`);

      // Assess
      expect(result.statusCode).toBe(409);
      expect(bodyOf(result).error).toMatchObject({
        code: "InvalidStatus",
        message: "goal is running; resume needs paused",
      });
      expect(events).toEqual([]);
    });
  });

  describe("POST /goals/{goalId}/retry", () => {
    it("publishes Retry Requested for a failed goal (202)", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);
      await change(goalId, (record) =>
        fail(record, { kind: "infrastructure", detail: "ThrottlingException", message: "slow down" }, NOW),
      );

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/retry`);

      // Assess
      expect(result.statusCode).toBe(202);
      expect(bodyOf(result)).toEqual({ goalId, requested: "retry" });
      expect(events).toEqual([
        {
          detailType: "Retry Requested",
          detail: {
            goalId,
            requestedBy: `arn:aws:iam::${tenant}:user/tester`,
            channel: "api",
            requestedAt: NOW.toISOString(),
          },
        },
      ]);
    });

    it.each([
      ["running", (record: GoalRecord) => ({ record, events: [] })],
      [
        "paused",
        (record: GoalRecord) => pause(record, { kind: "no_progress", detail: "n", message: "n" }, NOW),
      ],
      [
        "terminated",
        (record: GoalRecord) => terminate(record, { kind: "policy", detail: "t", message: "t" }, NOW),
      ],
    ])("answers 409 InvalidStatus for a %s goal, publishing nothing", async (status, to) => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);
      await change(goalId, to);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/retry`);

      // Assess
      expect(result.statusCode).toBe(409);
      expect(bodyOf(result).error).toMatchObject({
        code: "InvalidStatus",
        message: `goal is ${status}; retry needs failed`,
      });
      expect(events).toEqual([]);
    });
  });

  describe("POST /goals/{goalId}/limits", () => {
    it("changes a running goal's limits at once and answers them (200)", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/limits`, {
        maxSteps: 40,
        maxCostUsd: 3,
      });

      // Assess
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toMatchObject({ goalId, limits: { maxSteps: 40, maxCostUsd: 3 } });
      expect(events).toEqual([]);
      const stored = await backend.store.getGoal(goalId);
      expect(stored?.record.spec.limits).toMatchObject({ maxSteps: 40, maxCostUsd: 3 });
    });

    it.each([
      ["an empty patch", {}, ""],
      ["a negative budget", { maxCostUsd: -1 }, "maxCostUsd"],
      ["an unknown limit", { maxTokens: 5 }, "maxTokens"],
    ])("answers 400 naming the field for %s", async (_case, body, path) => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result } = await post(tenant, `/goals/${goalId}/limits`, body);

      // Assess
      expect(result.statusCode).toBe(400);
      expect(bodyOf(result).error).toMatchObject({
        code: "ValidationError",
        issues: expect.arrayContaining([expect.objectContaining({ path })]),
      });
    });

    it("answers 409 for a final goal", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);
      await change(goalId, (record) => terminate(record, { kind: "policy", detail: "t", message: "t" }, NOW));

      // Act
      const { result } = await post(tenant, `/goals/${goalId}/limits`, { maxSteps: 40 });

      // Assess
      expect(result.statusCode).toBe(409);
      expect(bodyOf(result).error).toMatchObject({
        code: "InvalidStatus",
        message: "goal is terminated; limits change only on a goal that is not final",
      });
    });
  });

  describe("POST /goals/{goalId}/cancel", () => {
    it("publishes Cancel Requested for a running goal (202), with the reason given", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/cancel`, { reason: "wrong goal" });

      // Assess
      expect(result.statusCode).toBe(202);
      expect(events).toMatchObject([
        { detailType: "Cancel Requested", detail: { goalId, reason: "wrong goal" } },
      ]);
    });

    it("answers 409 InvalidStatus for a final goal", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);
      await change(goalId, (record) => terminate(record, { kind: "policy", detail: "t", message: "t" }, NOW));

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/cancel`);

      // Assess
      expect(result.statusCode).toBe(409);
      expect(bodyOf(result).error).toMatchObject({
        code: "InvalidStatus",
        message: "goal is terminated; cancel needs a goal that is not final",
      });
      expect(events).toEqual([]);
    });
  });

  describe("POST /goals/{goalId}/pause", () => {
    it("publishes Pause Requested for a running goal (202), with the reason given", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/pause`, { reason: "lunch" });

      // Assess
      expect(result.statusCode).toBe(202);
      expect(bodyOf(result)).toEqual({ goalId, requested: "pause" });
      expect(events).toEqual([
        {
          detailType: "Pause Requested",
          detail: {
            goalId,
            reason: "lunch",
            requestedBy: `arn:aws:iam::${tenant}:user/tester`,
            channel: "api",
            requestedAt: NOW.toISOString(),
          },
        },
      ]);
      // Recorded by the resume handler, applied by the loop: nothing changed here.
      expect((await backend.store.getGoal(goalId))?.record).toMatchObject({ status: "running" });
    });

    it("answers 202 again while a pause request waits for its step boundary (idempotent)", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);
      await change(
        goalId,
        (record) => requestPause(record, { by: "ann", channel: "api" }, NOW) ?? noChange(record),
      );

      // Act
      const { result } = await post(tenant, `/goals/${goalId}/pause`);

      // Assess
      expect(result.statusCode).toBe(202);
    });

    it.each([
      [
        "paused",
        (record: GoalRecord) => pause(record, { kind: "no_progress", detail: "d", message: "m" }, NOW),
      ],
      [
        "terminated",
        (record: GoalRecord) => terminate(record, { kind: "policy", detail: "t", message: "t" }, NOW),
      ],
    ])("answers 409 InvalidStatus naming the status for a %s goal", async (status, how) => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);
      await change(goalId, how);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/pause`);

      // Assess
      expect(result.statusCode).toBe(409);
      expect(bodyOf(result).error).toMatchObject({
        code: "InvalidStatus",
        message: `goal is ${status}; pause needs running or waiting`,
      });
      expect(events).toEqual([]);
    });

    it("answers 400 naming the field for a body that is not {reason?}", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/pause`, { reason: "", why: 1 });

      // Assess
      expect(result.statusCode).toBe(400);
      const paths = (bodyOf(result).error as { issues: { path: string }[] }).issues.map(
        (issue) => issue.path,
      );
      expect(paths).toEqual(expect.arrayContaining(["reason"]));
      expect(events).toEqual([]);
    });

    it("lets resume withdraw a pause that has not taken effect yet (202 on a running goal)", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await aGoal(tenant);
      await change(
        goalId,
        (record) => requestPause(record, { by: "ann", channel: "api" }, NOW) ?? noChange(record),
      );

      // Act
      const { result, events } = await post(tenant, `/goals/${goalId}/resume`);

      // Assess
      expect(result.statusCode).toBe(202);
      expect(events).toMatchObject([{ detailType: "Resume Requested", detail: { goalId } }]);
    });
  });

  it.each([
    ["revisions", { type: "redirect", content: "x" }],
    ["directive", { text: "status" }],
    ["pause", undefined],
    ["resume", undefined],
    ["retry", undefined],
    ["limits", { maxSteps: 40 }],
    ["cancel", undefined],
  ])("answers 404 for another tenant's goal on %s, publishing nothing", async (route, body) => {
    // Prepare
    const goalId = await aGoal(aTenant());

    // Act
    const { result, events } = await post(aTenant(), `/goals/${goalId}/${route}`, body);

    // Assess
    expect(result.statusCode).toBe(404);
    expect(bodyOf(result).error).toMatchObject({ code: "GoalNotFound" });
    expect(events).toEqual([]);
  });
});
