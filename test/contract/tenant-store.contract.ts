import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantStore } from "../../lambdas/core/ports/tenant-store";
import { StartLimitError, takeStart } from "../../lambdas/core/tenants/start-pace";

/** A store for one suite, on a backend of its own. */
export interface TenantStoreBackend {
  readonly store: TenantStore;
  close(): Promise<void>;
}

/**
 * The tenant store on every backend (in memory, the DynamoDB adapter on dynalite and on DynamoDB
 * Local): slots, the start pace, spend and the operator's limits. Each case uses a tenant of its own.
 */
export function describeTenantStoreContract(
  backendName: string,
  start: () => Promise<TenantStoreBackend>,
): void {
  describe(`tenant store [${backendName}]`, () => {
    let backend: TenantStoreBackend;
    let cases = 0;
    const tenant = () => {
      cases += 1;
      return `team-${cases}`;
    };

    beforeAll(async () => {
      backend = await start();
    });

    afterAll(async () => {
      await backend?.close();
    });

    it("gives out at most `limit` slots, however many ask at once, and again to a goal that holds one", async () => {
      // Prepare
      const id = tenant();
      const goals = Array.from({ length: 8 }, (_, index) => `g-${index}`);

      // Act: eight goals race for three slots
      const taken = await Promise.all(goals.map((goalId) => backend.store.takeSlot(id, goalId, 3)));

      // Assess
      expect(taken.filter(Boolean)).toHaveLength(3);
      const holders = await backend.store.slotHolders(id);
      expect(holders).toHaveLength(3);
      const holder = holders[0] ?? "";
      expect(await backend.store.takeSlot(id, holder, 3)).toBe(true);
      expect(await backend.store.takeSlot(id, "g-late", 3)).toBe(false);
    });

    it("frees slots idempotently, and a freed slot goes to the next goal", async () => {
      // Prepare
      const id = tenant();
      await backend.store.takeSlot(id, "g-a", 1);

      // Act
      await backend.store.releaseSlots(id, ["g-a"]);
      await backend.store.releaseSlots(id, ["g-a", "g-never"]);

      // Assess
      expect(await backend.store.slotHolders(id)).toEqual([]);
      expect(await backend.store.takeSlot(id, "g-b", 1)).toBe(true);
      expect(await backend.store.slotHolders(id)).toEqual(["g-b"]);
    });

    it("paces starts per minute: a burst of the limit, then a 429 with when to come back", async () => {
      // Prepare
      const id = tenant();
      const now = new Date("2026-12-07T10:00:00.000Z");

      // Act: three starts at once on a limit of three, then a fourth
      for (let index = 0; index < 3; index += 1) await takeStart(backend.store, id, 3, now);
      const refused = await takeStart(backend.store, id, 3, now).catch((error: unknown) => error);

      // Assess: the fourth waits for the first's 20 s to pass
      expect(refused).toBeInstanceOf(StartLimitError);
      expect((refused as StartLimitError).retryAfterSeconds).toBe(20);
      await expect(
        takeStart(backend.store, id, 3, new Date(now.getTime() + 20_000)),
      ).resolves.toBeUndefined();
    });

    it("never lets racing starts past the limit", async () => {
      // Prepare
      const id = tenant();
      const now = new Date("2026-12-07T10:00:00.000Z");

      // Act: ten posts at once against a limit of four
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, () => takeStart(backend.store, id, 4, now)),
      );

      // Assess
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled").length).toBeLessThanOrEqual(4);
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled").length).toBeGreaterThanOrEqual(1);
    });

    it("adds spend per day, apart from other days and tenants", async () => {
      // Prepare
      const [a, b] = [tenant(), tenant()];

      // Act
      await Promise.all([
        backend.store.addSpend(a, "2026-12-07", 0.25),
        backend.store.addSpend(a, "2026-12-07", 0.5),
        backend.store.addSpend(a, "2026-12-08", 1),
        backend.store.addSpend(b, "2026-12-07", 2),
      ]);

      // Assess
      expect(await backend.store.spend(a, "2026-12-07")).toBeCloseTo(0.75, 10);
      expect(await backend.store.spend(a, "2026-12-08")).toBe(1);
      expect(await backend.store.spend(b, "2026-12-07")).toBe(2);
      expect(await backend.store.spend(a, "2026-12-09")).toBe(0);
    });

    it("keeps what an operator set, lifted limits included", async () => {
      // Prepare
      const id = tenant();

      // Act
      await backend.store.writeOverride(
        id,
        { concurrentGoals: 5, spendPerDayUsd: null },
        "arn:aws:iam::123456789012:role/Ops",
        new Date(),
      );

      // Assess
      expect(await backend.store.readOverride(id)).toEqual({ concurrentGoals: 5, spendPerDayUsd: null });
      expect(await backend.store.readOverride(tenant())).toBeUndefined();
    });
  });
}
