import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalSnapshot } from "../../lambdas/core/goal/goal-record";
import { bearerFetch, GoalLoopsClient } from "../../lib/client/index";
import type { LocalSecrets } from "../../lib/local/storage/local-secrets";
import { gatedNotifyGoal } from "./gated-notify-goal";
import { allEvents, type E2eStack, followGoal, startE2eStack } from "./local-stack-harness";
import { runCli } from "./run-cli";

/**
 * Two tenants in one local stack (DESIGN §6): A and B sign in with JWTs of the local OIDC issuer
 * (`GET /_local/token`), checked by the deployed authorizer's code; the unsigned loopback caller is
 * the operator (tenants.admins of the end-to-end configuration names it) and a third tenant of its
 * own. Nothing of A's answers to B but 404, and A's limits hold A alone.
 */

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

const SECRETS: LocalSecrets = {
  slackSigningSecret: "tenants-e2e-slack-signing-secret-0123456789",
  slackBotToken: "xoxb-tenants-e2e-bot-token",
  emailLinkSecret: "tenants-e2e-email-link-secret-0123456789abcdef0123",
};
/** The Slack approver of the end-to-end configuration, and its channel bound to team-a (channelTenants). */
const SLACK_APPROVER = "U123ABC";
const TEAM_A_CHANNEL = "C0TEAMA";

/** Billed like Claude Sonnet: each turn costs $0.123 (1,000 tokens in, 8,000 out). */
const USAGE = { inputTokens: 1000, outputTokens: 8000 };
const PRICED_FIXTURE = {
  reason: [
    { toolUse: { name: "workspace_write", input: { path: "draft.md", content: "draft" } }, usage: USAGE },
    {
      toolUse: { name: "workspace_write", input: { path: "report.md", content: "report: done" } },
      usage: USAGE,
    },
  ],
};

const reportGoal = (model: string) => ({
  objective: "Write a draft, then the report",
  successChecks: [
    {
      id: "report",
      description: "report.md is done",
      verify: { kind: "artifact", path: "report.md", contains: "done" },
    },
  ],
  limits: { maxCostUsd: 5, maxSteps: 10 },
  pattern: "react",
  models: { default: `scripted:${model}` },
});

/** A goal that must tell ops through `notify`, which waits for a human's approval. */
const notifyGoal = gatedNotifyGoal();

const summaryGoal = (index: number) => ({
  objective: `Write release summary number ${index} for goal-loops 2.0 to summary.md in the workspace.`,
  successChecks: [
    {
      id: "summary-written",
      description: "summary.md exists and names version 2.0",
      verify: { kind: "artifact", path: "summary.md", contains: "2.0" },
    },
  ],
  limits: { maxSteps: 10, maxCostUsd: 0.5 },
  pattern: "react",
  models: { default: "scripted:write-release-summary" },
});

describe("two tenants on one local stack, signed in with the local issuer's tokens", () => {
  let e2e: E2eStack;
  let tokenA: string;
  let tokenB: string;
  let a: GoalLoopsClient;
  let b: GoalLoopsClient;

  beforeAll(async () => {
    e2e = await startE2eStack({ e2eConfig: true, secrets: SECRETS });
    e2e.writeFixture("priced-tenant-report", PRICED_FIXTURE);
    tokenA = await mint("team-a", "alice");
    tokenB = await mint("team-b", "bob");
    a = new GoalLoopsClient(e2e.stack.apiUrl, { fetch: bearerFetch(tokenA) });
    b = new GoalLoopsClient(e2e.stack.apiUrl, { fetch: bearerFetch(tokenB) });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  /** A token from the local issuer, as a user's script gets one. */
  async function mint(tenant: string, sub: string): Promise<string> {
    const response = await fetch(`${e2e.stack.apiUrl}/_local/token?tenant=${tenant}&sub=${sub}`);
    expect(response.status).toBe(200);
    const { access_token: token } = (await response.json()) as { access_token: string };
    return token;
  }

  /** One request as a tenant (its token) or as the unsigned loopback caller (no token). */
  async function send(token: string | undefined, method: string, path: string, body?: unknown) {
    const response = await fetch(`${e2e.stack.apiUrl}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    const parsed: unknown = text.startsWith("{") ? JSON.parse(text) : { text };
    return { status: response.status, headers: response.headers, body: parsed as Record<string, unknown> };
  }

  /** The operator (loopback, an IAM admin locally) sets team-a's limits. */
  async function setTenantALimits(limits: Record<string, number | null>) {
    const answer = await send(undefined, "POST", "/tenants/team-a/limits", limits);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  }

  /** Polls a goal as `client` until `done` holds of it, keeping every snapshot seen. */
  async function until(client: GoalLoopsClient, goalId: string, done: (goal: GoalSnapshot) => boolean) {
    const seen: GoalSnapshot[] = [];
    for (const deadline = Date.now() + 120_000; ; ) {
      const goal = await client.getGoal(goalId);
      seen.push(goal);
      if (done(goal)) return seen;
      if (Date.now() > deadline) throw new Error(`goal ${goalId} is still ${goal.status}`);
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 200));
    }
  }

  it("answers B's token 404 on every route of A's goal and approval, changes nothing, and lets A approve its own", async () => {
    // Prepare: A's goal waits for A's approval of its notify
    const accepted = await a.submitGoal(notifyGoal);
    const { final: waiting } = await followGoal(a, accepted.goalId);
    expect(waiting).toMatchObject({ status: "waiting", waitingFor: { kind: "approval" } });
    const goalId = accepted.goalId;
    const approvalId = waiting.waitingFor?.approvalId ?? "";
    const goalPath = `/goals/${goalId}`;
    const eventsBefore = (await allEvents(a, goalId)).length;

    // Act: every route of the goal, the stream and the long poll, and the approval, with B's token
    const attempts: [string, string, unknown?][] = [
      ["GET", goalPath],
      ["GET", `${goalPath}/events?after=0`],
      ["GET", `${goalPath}/events?after=0&waitSeconds=1`],
      ["GET", `${goalPath}/stream`],
      ["GET", `${goalPath}/details`],
      ["GET", `${goalPath}/runs`],
      ["GET", `${goalPath}/runs/${waiting.runId}/history`],
      ["GET", `${goalPath}/children`],
      ["GET", `${goalPath}/steps`],
      ["POST", `${goalPath}/revisions`, { type: "add_constraint", content: "Say it in French" }],
      ["POST", `${goalPath}/directive`, { text: "/goal redirect tell nobody" }],
      ["POST", `${goalPath}/pause`, {}],
      ["POST", `${goalPath}/resume`, {}],
      ["POST", `${goalPath}/retry`, {}],
      ["POST", `${goalPath}/limits`, { maxSteps: 50 }],
      ["POST", `${goalPath}/cancel`, {}],
      ["POST", `${goalPath}/fork`, { atStep: 1 }],
      ["POST", `${goalPath}/replay`, {}],
      ["POST", `/approvals/${approvalId}`, { decision: "approve" }],
    ];
    const answers: [string, Answer][] = [];
    for (const [method, path, body] of attempts) {
      answers.push([`${method} ${path}`, await send(tokenB, method, path, body)]);
    }
    const loopback = [
      await send(undefined, "GET", goalPath),
      await send(undefined, "POST", `/approvals/${approvalId}`, { decision: "reject" }),
    ];
    const listedToB = await b.listGoals();
    const pendingOfB = await b.listApprovals("pending");

    // Assess: 404 in the API's error shape everywhere, for B and for the loopback tenant
    for (const [route, answer] of answers) {
      expect(answer.status, route).toBe(404);
      expect(answer.body, route).toMatchObject({ error: { code: expect.any(String) } });
    }
    expect(loopback.map((answer) => answer.status)).toEqual([404, 404]);
    expect(listedToB.items.map((goal) => goal.goalId)).not.toContain(goalId);
    expect(pendingOfB.map((approval) => approval.approvalId)).not.toContain(approvalId);
    // Nothing changed: A still sees the same wait, revision, limits and events
    await e2e.stack.events.idle();
    const after = await a.getGoal(goalId);
    expect(after).toMatchObject({
      status: "waiting",
      revision: waiting.revision,
      limits: waiting.limits,
      waitingFor: { approvalId },
    });
    expect((await allEvents(a, goalId)).length).toBe(eventsBefore);

    // Act + Assess: A approves its own approval, and the goal completes
    const decided = await send(tokenA, "POST", `/approvals/${approvalId}`, { decision: "approve" });
    expect(decided.status).toBe(200);
    await e2e.stack.events.idle();
    const seen = await until(a, goalId, (goal) => goal.status === "completed");
    expect(seen.at(-1)).toMatchObject({ status: "completed" });
  }, 240_000);

  /** A request to the Slack door, signed as Slack signs (v0 HMAC of the raw body with the signing secret). */
  async function slack(path: "/slack/interactions" | "/slack/commands", body: string) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac("sha256", SECRETS.slackSigningSecret)
      .update(`v0:${timestamp}:${body}`)
      .digest("hex");
    const response = await fetch(`${e2e.stack.apiUrl}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": `v0=${signature}`,
      },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, text: await response.text() };
  }

  const click = (approvalId: string, channelId: string) =>
    new URLSearchParams({
      payload: JSON.stringify({
        type: "block_actions",
        user: { id: SLACK_APPROVER, username: "ana" },
        team: { id: "T0E2E", domain: "acme" },
        actions: [{ type: "button", action_id: "approve", block_id: "approval", value: approvalId }],
        channel: { id: channelId, name: "team" },
        container: { type: "message", message_ts: `${Date.now() / 1000}`, channel_id: channelId },
      }),
    }).toString();

  const command = (text: string, channelId: string) =>
    new URLSearchParams({
      team_id: "T0E2E",
      channel_id: channelId,
      user_id: SLACK_APPROVER,
      command: "/goal",
      text,
      trigger_id: `${Date.now()}`,
    }).toString();

  it("acts in Slack for team-a only from team-a's channel: elsewhere A's goal and approval are unknown", async () => {
    // Prepare: A's goal waits for A's approval of its notify
    const accepted = await a.submitGoal(notifyGoal);
    const { final: waiting } = await followGoal(a, accepted.goalId);
    expect(waiting).toMatchObject({ status: "waiting", waitingFor: { kind: "approval" } });
    const approvalId = waiting.waitingFor?.approvalId ?? "";

    // Act: from the workspace's channel (the loopback tenant's), then from team-a's
    const statusElsewhere = await slack("/slack/commands", command(`${accepted.goalId} status`, "C123"));
    const clickElsewhere = await slack("/slack/interactions", click(approvalId, "C123"));
    await e2e.stack.events.idle();
    const stillPending = (await a.listApprovals("pending")).map((approval) => approval.approvalId);
    const statusInTeamChannel = await slack(
      "/slack/commands",
      command(`${accepted.goalId} status`, TEAM_A_CHANNEL),
    );
    const clickInTeamChannel = await slack("/slack/interactions", click(approvalId, TEAM_A_CHANNEL));

    // Assess: unknown elsewhere, nothing decided; decided from team-a's channel, and the goal completes
    expect(statusElsewhere.status).toBe(200);
    expect(statusElsewhere.text).toContain("does not exist");
    expect(clickElsewhere.status).toBe(200);
    expect(clickElsewhere.text).toContain("does not exist");
    expect(stillPending).toContain(approvalId);
    expect(statusInTeamChannel.text).toContain(`Goal ${accepted.goalId} is waiting`);
    expect(clickInTeamChannel.status).toBe(200);
    expect(clickInTeamChannel.text).not.toContain("does not exist");
    await e2e.stack.events.idle();
    const seen = await until(a, accepted.goalId, (goal) => goal.status === "completed");
    expect(seen.at(-1)).toMatchObject({ status: "completed" });
  }, 240_000);

  it("refuses forged and expired tokens with 401, and shows each tenant itself at GET /tenants/me", async () => {
    // Prepare
    const [header, payload, signature] = tokenA.split(".");
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8"));
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, tenant: "team-b" })).toString("base64url")}.${signature}`;
    const expired = await (
      await fetch(`${e2e.stack.apiUrl}/_local/token?tenant=team-a&sub=alice&expiresIn=-120`)
    ).json();

    // Act
    const refused = [
      await send(forged, "GET", "/goals"),
      await send(String(Reflect.get(Object(expired), "access_token")), "GET", "/goals"),
      await send("not-a-jwt", "GET", "/goals"),
    ];
    const meA = await send(tokenA, "GET", "/tenants/me");
    const meLoopback = await send(undefined, "GET", "/tenants/me");

    // Assess
    for (const answer of refused) {
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ error: { code: "Unauthorized" } });
    }
    expect(meA.body).toMatchObject({ tenantId: "team-a", caller: "jwt:alice", via: "jwt", admin: false });
    expect(meLoopback.body).toMatchObject({ tenantId: "local", via: "iam", admin: true });
  });

  it("keeps A's goals past its concurrency waiting for capacity, and completes them in turn while B's start at once", async () => {
    // Prepare
    await setTenantALimits({ concurrentGoals: 1 });

    // Act
    const ofA = [];
    for (const index of [1, 2, 3]) ofA.push(await a.submitGoal(summaryGoal(index)));
    const ofB = await b.submitGoal(summaryGoal(4));
    const seen = await Promise.all(
      ofA.map(({ goalId }) => until(a, goalId, (goal) => goal.status === "completed")),
    );
    const finalOfB = await until(b, ofB.goalId, (goal) => goal.status === "completed");

    // Assess: the two extra goals waited for capacity, none was dropped, and all completed
    expect(ofA.map((accepted) => accepted.status)).toEqual(["running", "waiting", "waiting"]);
    expect(ofB.status).toBe("running");
    for (const { goalId } of ofA.slice(1)) {
      const waits = (await allEvents(a, goalId)).filter((event) => event.type === "goal.waiting");
      expect(waits, goalId).toEqual([
        expect.objectContaining({
          waitingFor: expect.objectContaining({
            kind: "capacity",
            reason: expect.stringContaining("concurrentGoals"),
          }),
        }),
      ]);
    }
    expect(seen.map((snapshots) => snapshots.at(-1)?.status)).toEqual([
      "completed",
      "completed",
      "completed",
    ]);
    expect(finalOfB.at(-1)?.status).toBe("completed");
  }, 240_000);

  it("answers A's start past its per-minute limit 429 with Retry-After and the limit's name; B still starts", async () => {
    // Prepare
    await setTenantALimits({ concurrentGoals: null, startsPerMinute: 2 });

    // Act
    const starts = [];
    for (const index of [5, 6, 7]) starts.push(await send(tokenA, "POST", "/goals", summaryGoal(index)));
    const ofB = await send(tokenB, "POST", "/goals", summaryGoal(8));

    // Assess
    expect(starts.map((answer) => answer.status)).toEqual([202, 202, 429]);
    const refused = starts[2];
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused?.body).toMatchObject({
      error: { code: "TenantStartLimit", message: expect.stringContaining("startsPerMinute") },
    });
    expect(ofB.status).toBe(202);
  });

  it("pauses A's goal at its daily spend, naming the tenant budget, while B's same goal runs to the end", async () => {
    // Prepare: one priced turn ($0.123) spends A's whole $0.10 day
    await setTenantALimits({ startsPerMinute: null, spendPerDayUsd: 0.1 });

    // Act
    const ofA = await a.submitGoal(reportGoal("priced-tenant-report"));
    const ofB = await b.submitGoal(reportGoal("priced-tenant-report"));
    const seenA = await until(
      a,
      ofA.goalId,
      (goal) => goal.status === "paused" || goal.status === "completed",
    );
    const seenB = await until(
      b,
      ofB.goalId,
      (goal) => goal.status === "completed" || goal.status === "paused",
    );

    // Assess
    const pausedA = seenA.at(-1);
    expect(pausedA).toMatchObject({
      status: "paused",
      stopReason: { kind: "limit" },
      usage: { modelCalls: 1 },
    });
    expect(pausedA?.stopReason?.message).toMatch(/Tenant 'team-a'.*spendPerDayUsd/);
    expect(seenB.at(-1)).toMatchObject({ status: "completed", usage: { modelCalls: 2 } });
  }, 240_000);

  it("drives the CLI with --token: B's token gets 'not found' for A's goal, A's shows it", async () => {
    // Prepare
    const accepted = await a.submitGoal(summaryGoal(9));
    const port = new URL(e2e.stack.apiUrl).port;

    // Act
    const asB = await runCli(["status", accepted.goalId, "--port", port, "--token", tokenB]);
    const asA = await runCli(["status", accepted.goalId, "--port", port, "--json", "--token", tokenA]);

    // Assess
    expect(asB.code).not.toBe(0);
    expect(`${asB.stdout}${asB.stderr}`).toMatch(/404|not found/i);
    expect(asA.code, asA.stderr).toBe(0);
    expect(JSON.parse(asA.stdout)).toMatchObject({ goalId: accepted.goalId });
  }, 120_000);
});
