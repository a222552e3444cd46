import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancel } from "../../../lambdas/core/goal/goal-lifecycle";
import { handleGoalEnded } from "../../../lambdas/core/loop/subgoals/goal-ended";
import { admitWaitingGoals } from "../../../lambdas/core/tenants/tenant-admission";
import { tenantLimitsReader } from "../../../lambdas/core/tenants/tenant-directory";
import {
  type TenantsSettingsInput,
  TenantsSettingsSchema,
} from "../../../lambdas/core/tenants/tenants-settings";
import type { GoalsApiDeps } from "../../../lambdas/handlers/api/goals-api-deps";
import { MemoryTenantStore } from "../../support/memory-tenant-store";
import {
  aGoalSpec,
  apiEvent,
  bodyOf,
  buildApi,
  NOW,
  type StoreBackend,
  startStoreBackend,
} from "./api-harness";

const ACCOUNT = "123456789012";
const TEAM_A_ROLE = `arn:aws:sts::${ACCOUNT}:assumed-role/team-a-ci/session-1`;
const TEAM_B_ROLE = `arn:aws:sts::${ACCOUNT}:assumed-role/team-b-dev/session-2`;
const OPERATOR = `arn:aws:iam::${ACCOUNT}:role/platform-ops`;

/** The goals here never wait on a task token: nothing is ever sent to one. */
const CALLBACK = { succeed: async () => {} };

/** A JWT caller as the authorizer hands it to API Gateway. */
const jwt = (tenantId: string, sub = "user-1") => ({
  via: "jwt",
  tenantId,
  caller: `jwt:${sub}`,
  principalId: sub,
});

describe("tenants in one account", () => {
  let backend: StoreBackend;

  beforeAll(async () => {
    backend = await startStoreBackend();
  });

  afterAll(async () => {
    await backend.stop();
  });

  function apiWith(settings: TenantsSettingsInput, overrides: Partial<GoalsApiDeps> = {}) {
    const store = new MemoryTenantStore();
    const built = buildApi(backend.store, {
      tenants: { settings: TenantsSettingsSchema.parse(settings), store },
      ...overrides,
    });
    return { ...built, tenantStore: store };
  }

  const mapping = {
    iam: [
      { principal: `arn:aws:iam::${ACCOUNT}:role/team-a-*`, tenant: "team-a" },
      { principal: `arn:aws:iam::${ACCOUNT}:role/team-b-*`, tenant: "team-b" },
    ],
    admins: [OPERATOR],
  };

  const as = (userArn: string) => ({ accountId: ACCOUNT, userArn });

  it("maps IAM principals to tenants by role pattern, and answers another tenant's goal 404 on every route", async () => {
    // Prepare
    const { api, sfn } = apiWith(mapping);
    const posted = await api(
      apiEvent({ method: "POST", path: "/goals", body: aGoalSpec(), ...as(TEAM_A_ROLE) }),
    );
    const goalId = String(bodyOf(posted).goalId);
    const starts = sfn.commandCalls(StartExecutionCommand).length;

    // Act: team-b, and a JWT caller of team-b, try every route on team-a's goal
    const routes: [string, string, unknown?][] = [
      ["GET", `/goals/${goalId}`],
      ["GET", `/goals/${goalId}/events`],
      ["GET", `/goals/${goalId}/events?waitSeconds=1`],
      ["GET", `/goals/${goalId}/children`],
      ["GET", `/goals/${goalId}/details`],
      ["GET", `/goals/${goalId}/runs`],
      ["GET", `/goals/${goalId}/runs/r1/history`],
      ["POST", `/goals/${goalId}/revisions`, { type: "add_constraint", content: "no" }],
      ["POST", `/goals/${goalId}/directive`, { text: "/goal status" }],
      ["POST", `/goals/${goalId}/pause`],
      ["POST", `/goals/${goalId}/resume`],
      ["POST", `/goals/${goalId}/retry`],
      ["POST", `/goals/${goalId}/limits`, { maxSteps: 99 }],
      ["POST", `/goals/${goalId}/cancel`],
    ];
    const answers = [];
    for (const [method, target, body] of routes) {
      const [path, search] = target.split("?");
      const query = search === undefined ? undefined : Object.fromEntries(new URLSearchParams(search));
      for (const caller of [as(TEAM_B_ROLE), { accountId: null, authorizer: jwt("team-b") }]) {
        const result = await api(
          apiEvent({
            method,
            path: path ?? "",
            ...(query ? { query } : {}),
            ...(body ? { body } : {}),
            ...caller,
          }),
        );
        answers.push(
          `${method} ${target} ${result.statusCode} ${String((bodyOf(result).error as { code?: string })?.code)}`,
        );
      }
    }

    // Assess: every answer is the not-found a missing goal gets, and nothing changed
    expect(answers.filter((answer) => !answer.endsWith(" 404 GoalNotFound"))).toEqual([]);
    expect((await backend.store.getGoal(goalId))?.record).toMatchObject({
      tenantId: "team-a",
      status: "running",
      revision: 1,
    });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(starts);
    const own = await api(apiEvent({ method: "GET", path: `/goals/${goalId}`, ...as(TEAM_A_ROLE) }));
    expect(own.statusCode).toBe(200);
  });

  it("refuses a caller without a tenant it serves with 403 in the error shape", async () => {
    // Prepare: only team-a and team-b are served, no account fallback
    const { api } = apiWith({ ...mapping, accountFallback: false, known: ["team-a", "team-b"] });

    // Act
    const stranger = await api(apiEvent({ method: "GET", path: "/goals", accountId: ACCOUNT }));
    const unknownClaim = await api(
      apiEvent({ method: "GET", path: "/goals", accountId: null, authorizer: jwt("team-z") }),
    );
    const known = await api(
      apiEvent({ method: "GET", path: "/goals", accountId: null, authorizer: jwt("team-b") }),
    );

    // Assess
    expect(stranger.statusCode).toBe(403);
    expect(bodyOf(stranger).error).toMatchObject({ code: "UnknownTenant" });
    expect(unknownClaim.statusCode).toBe(403);
    expect(bodyOf(unknownClaim).error).toMatchObject({ code: "UnknownTenant" });
    expect(known.statusCode).toBe(200);
  });

  it("answers a start over the tenant's startsPerMinute with 429, Retry-After and the limit's name, storing nothing", async () => {
    // Prepare
    const { api, sfn } = apiWith({ ...mapping, limits: { "team-a": { startsPerMinute: 2 } } });
    const post = (userArn: string) =>
      api(apiEvent({ method: "POST", path: "/goals", body: aGoalSpec(), ...as(userArn) }));

    // Act
    const first = await post(TEAM_A_ROLE);
    const second = await post(TEAM_A_ROLE);
    const third = await post(TEAM_A_ROLE);
    const other = await post(TEAM_B_ROLE);

    // Assess
    expect([first.statusCode, second.statusCode, third.statusCode, other.statusCode]).toEqual([
      202, 202, 429, 202,
    ]);
    expect(third.headers?.["retry-after"]).toBe("30");
    expect(bodyOf(third).error).toMatchObject({
      code: "TenantStartLimit",
      limit: "startsPerMinute",
      tenantId: "team-a",
    });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(3);
    const listed = await api(apiEvent({ method: "GET", path: "/goals", ...as(TEAM_A_ROLE) }));
    expect((bodyOf(listed).items as unknown[]).length).toBeGreaterThanOrEqual(2);
  });

  it("keeps goals over the tenant's concurrency waiting, never dropped, and starts them in turn as slots free", async () => {
    // Prepare: team-c may run one goal at once
    const settings = {
      ...mapping,
      iam: [{ principal: `arn:aws:iam::${ACCOUNT}:role/team-c-*`, tenant: "team-c" }],
      limits: { "team-c": { concurrentGoals: 1 } },
    };
    // Each post a second after the one before: goals are admitted in the order they were posted.
    let tick = 0;
    const { api, sfn, tenantStore } = apiWith(settings, {
      now: () => new Date(NOW.getTime() + 1000 * tick++),
    });
    const teamC = `arn:aws:sts::${ACCOUNT}:assumed-role/team-c-ci/s`;
    const post = () => api(apiEvent({ method: "POST", path: "/goals", body: aGoalSpec(), ...as(teamC) }));

    // Act: three goals at once
    const posted = [bodyOf(await post()), bodyOf(await post()), bodyOf(await post())];

    // Assess: the first runs, the other two wait for their turn with the reason, with no run
    expect(posted.map((body) => body.status)).toEqual(["running", "waiting", "waiting"]);
    const [first, second, third] = posted.map((body) => String(body.goalId));
    const waiting = bodyOf(await api(apiEvent({ method: "GET", path: `/goals/${second}`, ...as(teamC) })));
    expect(waiting.waitingFor).toMatchObject({
      kind: "capacity",
      reason: expect.stringContaining("concurrentGoals"),
    });
    expect(waiting.resumeCondition).toMatchObject({ eventType: "Tenant Capacity Freed" });
    const started = () => sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input.name);
    expect(started()).toEqual([`${first}-r1`]);

    // Act: the first ends; its Goal Ended event frees its slot (as the resume handler wires it)
    const running = await backend.store.getGoal(first ?? "");
    if (running === undefined) throw new Error("the first goal was not stored");
    const cancelled = cancel(running.record, "tester", "done with it", NOW);
    await backend.store.commit(cancelled.record, running.version, cancelled.events);
    const admittedRuns: string[] = [];
    const admission = {
      goals: backend.store,
      tenants: tenantStore,
      limits: tenantLimitsReader(TenantsSettingsSchema.parse(settings), tenantStore),
      startRun: async ({ record }: { record: { goalId: string; runId: string } }) => {
        admittedRuns.push(`${record.goalId}-${record.runId}`);
      },
      now: () => NOW,
    };
    const outcome = await handleGoalEnded(
      {
        goals: backend.store,
        callback: CALLBACK,
        now: () => NOW,
        cancelGoal: async () => undefined,
        freeSlot: async (record) => {
          await tenantStore.releaseSlots(record.tenantId, [record.goalId]);
          return admitWaitingGoals(admission, record.tenantId);
        },
      },
      { goalId: first ?? "", status: "cancelled", pattern: "react", endedAt: NOW.toISOString() },
    );

    // Assess: the oldest waiting goal runs now, holding the slot; the third still waits
    expect(outcome.admitted).toEqual([second]);
    expect(admittedRuns).toEqual([`${second}-r1`]);
    expect((await backend.store.getGoal(second ?? ""))?.record).toMatchObject({
      status: "running",
      concurrencySlot: true,
      waitingFor: null,
    });
    expect((await backend.store.getGoal(third ?? ""))?.record.status).toBe("waiting");
    expect(await tenantStore.slotHolders("team-c")).toEqual([second]);
  });

  it("counts a tenant's running goals at GET /tenants/me with or without a concurrency limit, apart from the goals that limit counts", async () => {
    // Prepare: team-d has no concurrency limit, team-e may run one goal at once
    const settings = {
      ...mapping,
      iam: [
        { principal: `arn:aws:iam::${ACCOUNT}:role/team-d-*`, tenant: "team-d" },
        { principal: `arn:aws:iam::${ACCOUNT}:role/team-e-*`, tenant: "team-e" },
      ],
      limits: { "team-e": { concurrentGoals: 1 } },
    };
    let tick = 0;
    const { api } = apiWith(settings, { now: () => new Date(NOW.getTime() + 1000 * tick++) });
    const teamD = `arn:aws:sts::${ACCOUNT}:assumed-role/team-d-ci/s`;
    const teamE = `arn:aws:sts::${ACCOUNT}:assumed-role/team-e-ci/s`;
    const post = (arn: string) =>
      api(apiEvent({ method: "POST", path: "/goals", body: aGoalSpec(), ...as(arn) }));
    const me = async (arn: string) =>
      bodyOf(await api(apiEvent({ method: "GET", path: "/tenants/me", ...as(arn) }))).usage;

    // Act
    const postedD = [bodyOf(await post(teamD)), bodyOf(await post(teamD))];
    const postedE = [bodyOf(await post(teamE)), bodyOf(await post(teamE))];
    const usageD = await me(teamD);
    const usageE = await me(teamE);

    // Assess: team-d's two goals run, though no slot counts them; team-e's second waits for its turn
    expect(postedD.map((body) => body.status)).toEqual(["running", "running"]);
    expect(postedE.map((body) => body.status)).toEqual(["running", "waiting"]);
    expect(usageD).toMatchObject({ runningGoals: 2, concurrentGoals: 0 });
    expect(usageE).toMatchObject({ runningGoals: 1, concurrentGoals: 1 });
  });

  it("shows the caller its tenant, limits and use, and lets only an operator change them", async () => {
    // Prepare
    const { api } = apiWith({
      ...mapping,
      limits: { default: { spendPerDayUsd: 5 }, "team-a": { concurrentGoals: 3 } },
    });

    // Act
    const me = bodyOf(await api(apiEvent({ method: "GET", path: "/tenants/me", ...as(TEAM_A_ROLE) })));
    const byTeam = await api(
      apiEvent({
        method: "POST",
        path: "/tenants/team-a/limits",
        body: { concurrentGoals: 9 },
        ...as(TEAM_A_ROLE),
      }),
    );
    const byJwt = await api(
      apiEvent({
        method: "POST",
        path: "/tenants/team-a/limits",
        body: { concurrentGoals: 9 },
        accountId: null,
        authorizer: jwt("team-a"),
      }),
    );
    const byOperator = await api(
      apiEvent({
        method: "POST",
        path: "/tenants/team-a/limits",
        body: { spendPerDayUsd: 50, concurrentGoals: null },
        ...as(OPERATOR),
      }),
    );
    const after = bodyOf(await api(apiEvent({ method: "GET", path: "/tenants/me", ...as(TEAM_A_ROLE) })));
    // team-a's goals the earlier tests started, as its own listing shows them
    const running = bodyOf(
      await api(
        apiEvent({ method: "GET", path: "/goals", query: { status: "running" }, ...as(TEAM_A_ROLE) }),
      ),
    ).items as unknown[];

    // Assess
    expect(running.length).toBeGreaterThan(0);
    expect(me).toMatchObject({
      tenantId: "team-a",
      caller: TEAM_A_ROLE,
      via: "iam",
      admin: false,
      limits: { concurrentGoals: 3, spendPerDayUsd: 5 },
      usage: { runningGoals: running.length, concurrentGoals: 0, spendTodayUsd: 0, day: "2026-03-01" },
    });
    expect([byTeam.statusCode, byJwt.statusCode]).toEqual([403, 403]);
    expect(bodyOf(byTeam).error).toMatchObject({ code: "Forbidden" });
    expect(byOperator.statusCode).toBe(200);
    expect(bodyOf(byOperator)).toEqual({ tenantId: "team-a", limits: { spendPerDayUsd: 50 } });
    expect(after.limits).toEqual({ spendPerDayUsd: 50 });
  });
});
