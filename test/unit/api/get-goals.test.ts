import { describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { cancel, fail } from "../../../lambdas/core/goal/goal-lifecycle";
import { GoalSnapshotSchema } from "../../../lambdas/core/goal/goal-record";
import type { GoalEventWait, GoalEventWaiter } from "../../../lambdas/core/ports/goal-event-waiter";
import { aGoalSpec, apiEvent, aTenant, bodyOf, buildApi, NOW, suiteStoreBackend } from "./api-harness";

describe("GET /goals", () => {
  const backend = suiteStoreBackend();

  /** Creates a goal through the API and returns its id. */
  async function postGoal(tenant: string, objective = "Write a haiku about DynamoDB"): Promise<string> {
    const { api } = buildApi(backend.store);
    const result = await api(
      apiEvent({ method: "POST", path: "/goals", body: aGoalSpec({ objective }), accountId: tenant }),
    );
    expect(result.statusCode).toBe(202);
    return String(bodyOf(result).goalId);
  }

  const get = (tenant: string, path: string, query?: Record<string, string>) =>
    buildApi(backend.store).api(apiEvent({ method: "GET", path, query, accountId: tenant }));

  describe("list", () => {
    it("lists only the caller's tenant's goals, as snapshots", async () => {
      // Prepare
      const mine = aTenant();
      const theirs = aTenant();
      const myGoals = [await postGoal(mine, "first"), await postGoal(mine, "second")];
      await postGoal(theirs, "not mine");

      // Act
      const result = await get(mine, "/goals");

      // Assess
      expect(result.statusCode).toBe(200);
      const items = bodyOf(result).items as unknown[];
      const snapshots = items.map((item) => z.strictObject(GoalSnapshotSchema.shape).parse(item));
      expect(snapshots.map((snapshot) => snapshot.goalId).sort()).toEqual([...myGoals].sort());
      expect(bodyOf(result).cursor).toBeUndefined();
    });

    it("filters by status", async () => {
      // Prepare
      const tenant = aTenant();
      const running = await postGoal(tenant);
      const failing = await postGoal(tenant);
      const stored = await backend.store.getGoal(failing);
      if (!stored) throw new Error("goal not stored");
      const failed = fail(stored.record, { kind: "infrastructure", detail: "test", message: "test" }, NOW);
      await backend.store.commit(failed.record, stored.version, failed.events);

      // Act
      const runningOnly = await get(tenant, "/goals", { status: "running" });
      const failedOnly = await get(tenant, "/goals", { status: "failed" });

      // Assess
      const ids = (result: typeof runningOnly) =>
        (bodyOf(result).items as { goalId: string }[]).map((item) => item.goalId);
      expect(ids(runningOnly)).toEqual([running]);
      expect(ids(failedOnly)).toEqual([failing]);
    });

    it("pages with limit and cursor", async () => {
      // Prepare
      const tenant = aTenant();
      const created = [await postGoal(tenant), await postGoal(tenant), await postGoal(tenant)];

      // Act
      const first = await get(tenant, "/goals", { limit: "2" });
      const cursor = String(bodyOf(first).cursor);
      const second = await get(tenant, "/goals", { limit: "2", cursor });

      // Assess
      const ids = (result: typeof first) =>
        (bodyOf(result).items as { goalId: string }[]).map((item) => item.goalId);
      expect(ids(first)).toHaveLength(2);
      expect([...ids(first), ...ids(second)].sort()).toEqual([...created].sort());
    });

    it("answers 400 for a bad status, limit or cursor, naming the parameter", async () => {
      // Prepare
      const tenant = aTenant();

      // Act
      const badStatus = await get(tenant, "/goals", { status: "sleeping" });
      const badLimit = await get(tenant, "/goals", { limit: "0" });
      const badCursor = await get(tenant, "/goals", { cursor: "not-a-cursor" });

      // Assess
      for (const [result, path] of [
        [badStatus, "status"],
        [badLimit, "limit"],
        [badCursor, "cursor"],
      ] as const) {
        expect(result.statusCode).toBe(400);
        expect(bodyOf(result).error).toMatchObject({ code: "ValidationError", issues: [{ path }] });
      }
    });
  });

  describe("one goal", () => {
    it("answers the snapshot", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await postGoal(tenant, "snapshot me");

      // Act
      const result = await get(tenant, `/goals/${goalId}`);

      // Assess
      expect(result.statusCode).toBe(200);
      const snapshot = z.strictObject(GoalSnapshotSchema.shape).parse(bodyOf(result));
      expect(snapshot).toMatchObject({
        goalId,
        status: "running",
        objective: "snapshot me",
        runId: "r1",
        unsatisfiedChecks: ["haiku-written"],
      });
    });

    it("answers 404 GoalNotFound for an unknown id and for another tenant's goal alike", async () => {
      // Prepare
      const goalId = await postGoal(aTenant());
      const stranger = aTenant();

      // Act
      const unknown = await get(stranger, "/goals/g-00000000000000000000000000");
      const foreign = await get(stranger, `/goals/${goalId}`);

      // Assess
      for (const result of [unknown, foreign]) {
        expect(result.statusCode).toBe(404);
        expect(bodyOf(result)).toEqual({ error: { code: "GoalNotFound", message: expect.any(String) } });
      }
    });
  });

  describe("events", () => {
    /** A goal with 5 events: goal.created and 4 more. */
    async function goalWithFiveEvents(tenant: string): Promise<string> {
      const goalId = await postGoal(tenant);
      const stored = await backend.store.getGoal(goalId);
      if (!stored) throw new Error("goal not stored");
      const at = NOW.toISOString();
      await backend.store.commit(
        stored.record,
        stored.version,
        [1, 2, 3, 4].map((n) => ({ type: "test.note", at, runId: "r1", n })),
      );
      return goalId;
    }

    it("pages through the events with after and nextSeq", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await goalWithFiveEvents(tenant);
      const path = `/goals/${goalId}/events`;

      // Act
      const first = await get(tenant, path, { limit: "2" });
      const second = await get(tenant, path, { after: String(bodyOf(first).nextSeq), limit: "2" });
      const third = await get(tenant, path, { after: String(bodyOf(second).nextSeq), limit: "2" });
      const past = await get(tenant, path, { after: String(bodyOf(third).nextSeq) });

      // Assess
      const seqs = (result: typeof first) => (bodyOf(result).items as { seq: number }[]).map((e) => e.seq);
      expect(seqs(first)).toEqual([1, 2]);
      expect(bodyOf(first).nextSeq).toBe(2);
      expect(seqs(second)).toEqual([3, 4]);
      expect(seqs(third)).toEqual([5]);
      expect(bodyOf(third).nextSeq).toBe(5);
      expect(bodyOf(past)).toEqual({ items: [], nextSeq: 5 });
      expect((bodyOf(first).items as unknown[])[0]).toMatchObject({
        goalId,
        seq: 1,
        type: "goal.created",
        at: NOW.toISOString(),
        runId: "r1",
        pattern: "react",
      });
      expect((bodyOf(second).items as unknown[])[0]).toMatchObject({ seq: 3, type: "test.note", n: 2 });
    });

    it("answers 400 naming `after` when it is not a whole number >= 0", async () => {
      // Prepare
      const tenant = aTenant();
      const goalId = await postGoal(tenant);

      // Act
      const results = await Promise.all(
        ["abc", "-1", "1.5", ""].map((after) => get(tenant, `/goals/${goalId}/events`, { after })),
      );

      // Assess
      for (const result of results) {
        expect(result.statusCode).toBe(400);
        expect(bodyOf(result).error).toMatchObject({
          code: "ValidationError",
          issues: [{ path: "after", message: expect.any(String) }],
        });
      }
    });

    describe("long poll (waitSeconds)", () => {
      it("waits on the waiter and answers with the first event that arrives after `after`", async () => {
        // Prepare: a waiter that, on its first wait, lets the goal record one more event.
        const tenant = aTenant();
        const goalId = await goalWithFiveEvents(tenant);
        const waits: GoalEventWait[] = [];
        const eventWaiter: GoalEventWaiter = {
          wait: async (request) => {
            waits.push(request);
            const stored = await backend.store.getGoal(goalId);
            if (!stored) throw new Error("goal not stored");
            await backend.store.commit(stored.record, stored.version, [
              { type: "test.late", at: NOW.toISOString(), runId: "r1" },
            ]);
          },
        };
        const { api } = buildApi(backend.store, { eventWaiter });

        // Act
        const result = await api(
          apiEvent({
            method: "GET",
            path: `/goals/${goalId}/events`,
            query: { after: "5", waitSeconds: "20" },
            accountId: tenant,
          }),
        );

        // Assess
        expect(result.statusCode).toBe(200);
        expect(bodyOf(result)).toMatchObject({ items: [{ seq: 6, type: "test.late" }], nextSeq: 6 });
        expect(waits).toHaveLength(1);
        expect(waits[0]).toMatchObject({ goalId, after: 5, round: 0 });
        expect(waits[0]?.until.getTime()).toBe(NOW.getTime() + 20_000);
      });

      it("answers empty once waitSeconds have passed, backing off round by round", async () => {
        // Prepare: a clock that moves one second per reading, and a waiter that only counts.
        const tenant = aTenant();
        const goalId = await goalWithFiveEvents(tenant);
        let ticks = 0;
        const rounds: number[] = [];
        const { api } = buildApi(backend.store, {
          now: () => new Date(NOW.getTime() + 1000 * ticks++),
          eventWaiter: { wait: async (request) => void rounds.push(request.round) },
        });

        // Act
        const result = await api(
          apiEvent({
            method: "GET",
            path: `/goals/${goalId}/events`,
            query: { after: "5", waitSeconds: "3" },
            accountId: tenant,
          }),
        );

        // Assess
        expect(bodyOf(result)).toEqual({ items: [], nextSeq: 5 });
        expect(rounds.length).toBeGreaterThan(0);
        expect(rounds).toEqual(rounds.map((_, index) => index));
      });

      it("does not wait for a goal that is final, and refuses waitSeconds above 20", async () => {
        // Prepare
        const tenant = aTenant();
        const goalId = await postGoal(tenant);
        const stored = await backend.store.getGoal(goalId);
        if (!stored) throw new Error("goal not stored");
        const cancelled = cancel(stored.record, "test", "enough", NOW);
        await backend.store.commit(cancelled.record, stored.version, cancelled.events);
        const eventWaiter = { wait: vi.fn(async () => undefined) };
        const { api } = buildApi(backend.store, { eventWaiter });
        const path = `/goals/${goalId}/events`;
        const last = String((await backend.store.getGoal(goalId))?.record.lastEventSeq);

        // Act
        const final = await api(
          apiEvent({ method: "GET", path, query: { after: last, waitSeconds: "20" }, accountId: tenant }),
        );
        const tooLong = await api(
          apiEvent({ method: "GET", path, query: { waitSeconds: "21" }, accountId: tenant }),
        );

        // Assess
        expect(bodyOf(final).items).toEqual([]);
        expect(eventWaiter.wait).not.toHaveBeenCalled();
        expect(tooLong.statusCode).toBe(400);
        expect(bodyOf(tooLong).error).toMatchObject({ issues: [{ path: "waitSeconds" }] });
      });
    });

    it("answers 404 for another tenant's goal", async () => {
      // Prepare
      const goalId = await postGoal(aTenant());

      // Act
      const result = await get(aTenant(), `/goals/${goalId}/events`);

      // Assess
      expect(result.statusCode).toBe(404);
      expect(bodyOf(result).error).toMatchObject({ code: "GoalNotFound" });
    });
  });
});
