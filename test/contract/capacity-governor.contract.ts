import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CapacityHold } from "../../lambdas/core/goal/goal-activity";
import {
  type CapacityContext,
  CapacityGovernor,
  type CapacityGrant,
  isCapacityWait,
} from "../../lambdas/core/models/capacity/capacity-governor";
import type { ModelQuota } from "../../lambdas/core/models/capacity/model-quota";
import type { CapacityStore } from "../../lambdas/core/ports/capacity-store";
import { ModelQuotaEnforcer } from "../../lib/local/bedrock/model-quota-enforcer";

/** A store for one suite, on a backend of its own. */
export interface CapacityBackend {
  readonly store: CapacityStore;
  close(): Promise<void>;
}

/** A model outside the Claude family: one output token burns one quota token. */
const MODEL = "amazon.nova-lite-v1:0";
const NORMAL: CapacityContext = { priority: "normal", attempts: 0 };
const HIGH: CapacityContext = { priority: "high", attempts: 0 };
const NO_USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** A clock only the test moves, starting at a round epoch. */
class FakeClock {
  ms = Date.parse("2026-12-07T10:00:00.000Z");
  readonly now = () => new Date(this.ms);
}

/** When a call may start: at once (a grant, after any pause), or at its booked moment (a hold). */
type Outcome =
  | { readonly kind: "grant"; readonly startMs: number; readonly grant: CapacityGrant | undefined }
  | {
      readonly kind: "hold";
      readonly startMs: number;
      readonly waitSeconds: number;
      readonly hold: CapacityHold;
    }
  | { readonly kind: "wait"; readonly waitSeconds: number };

/**
 * The capacity governor on a CapacityStore backend: the same cases for the in-memory store and the
 * DynamoDB adapter on dynalite and DynamoDB Local. Each case uses a model partition of its own.
 */
export function describeCapacityContract(backendName: string, start: () => Promise<CapacityBackend>): void {
  describe(`capacity governor [${backendName}]`, () => {
    let backend: CapacityBackend;
    let cases = 0;

    beforeAll(async () => {
      backend = await start();
    });

    afterAll(async () => {
      await backend?.close();
    });

    /** A governor with one quota on a model id of this case's own, on a fresh clock. */
    function governorFor(quota: ModelQuota) {
      cases += 1;
      const model = `${MODEL}-case${cases}`;
      const clock = new FakeClock();
      // Each call pauses on its own (a step's in-process wait): the pause says when it starts.
      const governorPausing = (pause: { ms: number }) =>
        new CapacityGovernor({
          store: backend.store,
          quotas: { [model]: quota },
          now: clock.now,
          sleep: async (ms) => {
            pause.ms = ms;
          },
          random: () => 0.5,
        });
      const governor = governorPausing({ ms: 0 });
      const ask = async (tokens: number, context: CapacityContext = NORMAL): Promise<Outcome> => {
        const askedAt = clock.ms;
        const pause = { ms: 0 };
        try {
          const grant = await governorPausing(pause).acquire(model, tokens, context);
          return { kind: "grant", startMs: askedAt + pause.ms, grant };
        } catch (error) {
          if (!isCapacityWait(error)) throw error;
          if (error.hold === undefined) return { kind: "wait", waitSeconds: error.waitSeconds };
          expect(Date.parse(error.hold.slotAt)).toBeGreaterThan(askedAt);
          return {
            kind: "hold",
            startMs: Date.parse(error.hold.slotAt),
            waitSeconds: error.waitSeconds,
            hold: error.hold,
          };
        }
      };
      return { model, clock, governor, governorPausing, ask };
    }

    it.each([
      ["one lane", { requestsPerMinute: 60, tokensPerMinute: 10_000_000, burstSeconds: 5 }, 30],
      ["eight lanes", { requestsPerMinute: 600, tokensPerMinute: 100_000_000, burstSeconds: 5 }, 120],
    ])(
      "lets no more calls start than the quota allows, however many ask at once (%s)",
      async (_lanes, quota, calls) => {
        // Prepare
        const { model, clock, ask } = governorFor(quota);
        const startMs = clock.ms;

        // Act: every call at the same moment, each free to book as far ahead as it must
        const outcomes = await Promise.all(Array.from({ length: calls }, () => ask(100, HIGH)));

        // Assess: every booked start is admitted by the local endpoint's bucket at that moment, and
        // the calls that could not book (their bookings kept colliding) were told to wait
        const starts = outcomes
          .flatMap((outcome) => (outcome.kind === "wait" ? [] : [outcome.startMs]))
          .sort((a, b) => a - b);
        let now = startMs;
        const endpoint = new ModelQuotaEnforcer({ byModel: { [model]: quota } }, () => now);
        for (const at of starts) {
          now = at;
          expect(() => endpoint.admit(model, 100), `a call booked at +${at - startMs} ms`).not.toThrow();
        }
        expect(endpoint.throttled).toBe(0);
        expect(starts.length).toBeGreaterThanOrEqual(calls / 2);
        const waited = outcomes.filter((outcome) => outcome.kind === "wait");
        expect(waited.every((outcome) => outcome.kind === "wait" && outcome.waitSeconds >= 1)).toBe(true);
      },
    );

    it("gives capacity in the order calls asked: each later call books a later moment", async () => {
      // Prepare: one request at a time, one a second.
      const { clock, ask } = governorFor({
        requestsPerMinute: 60,
        tokensPerMinute: 10_000_000,
        burstSeconds: 1,
      });
      const startMs = clock.ms;

      // Act: ten calls, one after the other, all at the same moment
      const outcomes: Outcome[] = [];
      for (let i = 0; i < 10; i += 1) outcomes.push(await ask(100));

      // Assess
      const offsets = outcomes.map((outcome) => (outcome.kind === "wait" ? -1 : outcome.startMs - startMs));
      expect(offsets).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000]);
    });

    it("ends a booked call's wait just before its moment, and starts the call on the moment itself", async () => {
      // Prepare: one request a second; calls asked at +0 and +300 ms take the moments +0 and +1 s,
      // so the third books +2 s, 1.7 s after it asked
      const { clock, ask, governorPausing, model } = governorFor({
        requestsPerMinute: 60,
        tokensPerMinute: 10_000_000,
        burstSeconds: 1,
      });
      await ask(100);
      clock.ms += 300;
      await ask(100);
      const booked = await ask(100);
      if (booked.kind !== "hold") throw new Error("the third call must book ahead");

      // Act: the step runs again when its Wait state ends, and spends the hold
      clock.ms += booked.waitSeconds * 1000;
      const pause = { ms: -1 };
      const grant = await governorPausing(pause).acquire(model, 100, { ...NORMAL, hold: booked.hold });

      // Assess: the wait (whole seconds) ended within the second before the moment; the step paused
      // the rest, so the call starts on its moment, not up to a second after it
      expect(booked.waitSeconds).toBe(1);
      expect(pause.ms).toBe(700);
      expect(clock.ms + pause.ms).toBe(booked.startMs);
      expect(grant?.startMs).toBe(booked.startMs);
    });

    it("returns a reservation's unused tokens when the call is settled", async () => {
      // Prepare: 6,000 tokens a minute, 10 s at once: a bucket of 1,000 tokens refilled 100 a second,
      // of which the governor books 900.
      const quota = { requestsPerMinute: 1000, tokensPerMinute: 6000, burstSeconds: 10 };
      const settled = governorFor(quota);
      const unsettled = governorFor(quota);

      // Act: a call reserves 800 tokens and uses 100; a second call of 800 follows at once
      const first = await settled.ask(800);
      if (first.kind !== "grant") throw new Error("the first call must go at once");
      await settled.governor.settle(first.grant, { ...NO_USAGE, inputTokens: 60, outputTokens: 40 });
      const afterSettling = await settled.ask(800);
      await unsettled.ask(800);
      const withoutSettling = await unsettled.ask(800);

      // Assess: settled, the second goes at once; unsettled, it waits until 700 tokens came back
      // (the governor books 9 s of the 10 s burst: a second is headroom for late arrivals)
      expect(afterSettling).toMatchObject({ kind: "grant", startMs: settled.clock.ms });
      expect(withoutSettling.kind).toBe("hold");
      if (withoutSettling.kind === "hold") {
        expect(withoutSettling.startMs - unsettled.clock.ms).toBeGreaterThanOrEqual(6_900);
      }
    });

    it("takes tokens back from a call that used more than it reserved", async () => {
      // Prepare
      const { clock, governor, ask } = governorFor({
        requestsPerMinute: 1000,
        tokensPerMinute: 6000,
        burstSeconds: 10,
      });
      const first = await ask(100);
      if (first.kind !== "grant") throw new Error("the first call must go at once");

      // Act: it reserved 100 and used 1,000
      await governor.settle(first.grant, { ...NO_USAGE, inputTokens: 200, outputTokens: 800 });
      const next = await ask(100);

      // Assess: the bucket is empty; the next call waits for a second's refill
      expect(next.kind).not.toBe("wait");
      if (next.kind !== "wait") expect(next.startMs - clock.ms).toBeGreaterThanOrEqual(900);
    });

    it("leaks nothing past one window when a step dies between acquiring and calling", async () => {
      // Prepare: a bucket of 1,000 tokens refilled 100 a second
      const { clock, ask } = governorFor({
        requestsPerMinute: 1000,
        tokensPerMinute: 6000,
        burstSeconds: 10,
      });
      const crashed = await ask(1000);
      expect(crashed.kind).toBe("grant");

      // Act: the step never calls and never settles; a whole bucket is asked for one window later
      clock.ms += 10_000;
      const later = await ask(1000);

      // Assess
      expect(later).toMatchObject({ kind: "grant", startMs: clock.ms });
    });

    it("lets a high-priority call book ahead of a backlog that normal calls may not book into", async () => {
      // Prepare: one call a second, no burst; 65 normal calls ask at once
      const { clock, ask } = governorFor({
        requestsPerMinute: 60,
        tokensPerMinute: 10_000_000,
        burstSeconds: 1,
      });
      const startMs = clock.ms;
      const backlog: Outcome[] = [];
      for (let i = 0; i < 65; i += 1) backlog.push(await ask(10));

      // Act: a normal and a high call ask now
      const normal = await ask(10, NORMAL);
      const high = await ask(10, HIGH);

      // Assess: normal calls booked up to a minute ahead and then waited without booking; the high
      // call booked the next free moment, and the normal one still waits
      expect(backlog.filter((outcome) => outcome.kind !== "wait")).toHaveLength(61);
      expect(normal.kind).toBe("wait");
      expect(high.kind).toBe("hold");
      if (high.kind === "hold") expect(high.startMs - startMs).toBe(61_000);
    });

    it("lets a waiting low-priority call reach further each time it asks, until it books", async () => {
      // Prepare: a backlog two minutes long, booked by high calls
      const { clock, ask } = governorFor({
        requestsPerMinute: 60,
        tokensPerMinute: 10_000_000,
        burstSeconds: 1,
      });
      for (let i = 0; i < 120; i += 1) await ask(10, HIGH);
      const since = clock.now().toISOString();

      // Act: a low call asks, waits as told, and asks again, while a high call joins each second
      let outcome = await ask(10, { priority: "low", attempts: 0 });
      let asked = 1;
      while (outcome.kind === "wait" && asked < 50) {
        clock.ms += outcome.waitSeconds * 1000;
        for (let joined = 0; joined < outcome.waitSeconds; joined += 1) await ask(10, HIGH);
        outcome = await ask(10, { priority: "low", attempts: asked, waitingSince: since });
        asked += 1;
      }

      // Assess: it booked, within a few asks, though high calls kept coming as fast as the quota goes
      expect(outcome.kind).not.toBe("wait");
      expect(asked).toBeLessThan(10);
    });

    it("lowers its pace to 70 % when Bedrock throttles anyway, and climbs back within a minute", async () => {
      // Prepare: one call a second, nothing at once beyond it
      const { clock, governor, ask, model } = governorFor({
        requestsPerMinute: 60,
        tokensPerMinute: 10_000_000,
        burstSeconds: 1,
      });

      // Act: Bedrock throttles a call the governor let through
      let wait: unknown;
      try {
        await governor.throttled(model, 10, NORMAL);
      } catch (error) {
        wait = error;
      }
      const lowered: number[] = [];
      for (let i = 0; i < 6; i += 1) {
        const outcome = await ask(10, HIGH);
        if (outcome.kind !== "wait") lowered.push(outcome.startMs);
      }
      clock.ms += 120_000;
      const recovered: number[] = [];
      for (let i = 0; i < 6; i += 1) {
        const outcome = await ask(10, HIGH);
        if (outcome.kind !== "wait") recovered.push(outcome.startMs);
      }

      // Assess: the call waits; at 70 % of the rate calls are 1/0.7 s apart, after a minute 1 s again
      expect(isCapacityWait(wait) && wait.reason).toBe("throttled");
      const gaps = (starts: number[]) => starts.slice(1).map((at, i) => at - (starts[i] ?? at));
      expect(Math.min(...gaps(lowered).slice(1))).toBeGreaterThanOrEqual(1000 / 0.7 - 1);
      expect(Math.max(...gaps(recovered).slice(1))).toBeLessThanOrEqual(1001);
    });

    it("does not pace a model without a quota, and backs its throttles off longer each time", async () => {
      // Prepare
      const clock = new FakeClock();
      const governor = new CapacityGovernor({
        store: backend.store,
        quotas: {},
        now: clock.now,
        random: () => 1,
      });

      // Act
      const grant = await governor.acquire("unquoted.model", 1_000_000, NORMAL);
      const waits: number[] = [];
      for (const attempts of [0, 1, 2, 3, 9]) {
        try {
          await governor.throttled("unquoted.model", 100, { priority: "normal", attempts });
        } catch (error) {
          if (isCapacityWait(error)) waits.push(error.waitSeconds);
        }
      }

      // Assess: no grant to settle; 1, 2, 4, 8 s, then at most a minute
      expect(grant).toBeUndefined();
      expect(waits).toEqual([1, 2, 4, 8, 60]);
    });
  });
}
