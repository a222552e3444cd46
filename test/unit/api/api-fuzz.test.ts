import { createHmac, randomBytes } from "node:crypto";
import { Logger } from "@aws-lambda-powertools/logger";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type DynamoDBDocumentClient, paginateScan } from "@aws-sdk/lib-dynamodb";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDbGoalStore } from "../../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { DynamoDbStepLog } from "../../../lambdas/adapters/dynamodb/dynamodb-step-log";
import { DynamoDbWorkspace } from "../../../lambdas/adapters/dynamodb/dynamodb-workspace";
import { DynamoDbTenantStore } from "../../../lambdas/adapters/dynamodb/limits/dynamodb-tenant-store";
import { DynamoDbReplayGuard } from "../../../lambdas/adapters/dynamodb/slack-replay-guard";
import { approvalIdFromBytes } from "../../../lambdas/core/goal/goal-ids";
import { waitFor } from "../../../lambdas/core/goal/goal-lifecycle";
import { emailApprovers } from "../../../lambdas/core/human/email/email-approvers";
import { DEFAULT_TENANTS_SETTINGS } from "../../../lambdas/core/tenants/tenants-settings";
import { goalsApiRoutes } from "../../../lambdas/handlers/api/create-goals-api";
import type { GoalsApiDeps } from "../../../lambdas/handlers/api/goals-api-deps";
import { createEmailDoor, type EmailDoor } from "../../../lambdas/handlers/human/email/create-email-door";
import { createSlackDoor, type SlackDoor } from "../../../lambdas/handlers/human/slack/create-slack-door";
import { createGoalTable } from "../../../lib/local/storage/create-goal-table";
import {
  badRequests,
  bind,
  type FuzzAnswer,
  type FuzzFixture,
  type FuzzRequest,
  fuzzApi,
  type RouteTemplate,
} from "../../support/bad-requests";
import { documentClientFor, dynamoClientFor, startDynalite } from "../../support/dynamo-backends";
import { RecordingResponder } from "../human/slack/support";
import { aPendingApproval, RecordingPublisher } from "../human/support";
import { aGoalSpec, apiEvent, bodyOf, buildApi, NOW } from "./api-harness";

const TENANT = "123456789012";
const SLACK_SECRET = "fuzz-slack-signing-secret-0123456789";
const LINK_SECRET = "fuzz-email-link-secret-0123456789abcdef0123";
const SLACK_APPROVER = "U0ANA";

/** The goals API's routes, read from the handler itself, and the doors' routes beside them. */
function servedRoutes(): RouteTemplate[] {
  const goalsApi = goalsApiRoutes({} as GoalsApiDeps).map(({ method, path }) => ({ method, path }));
  return [
    ...goalsApi,
    { method: "POST", path: "/slack/interactions" },
    { method: "POST", path: "/slack/commands" },
    { method: "GET", path: "/email/approvals/{approvalId}" },
    { method: "POST", path: "/email/approvals/{approvalId}" },
  ];
}

/** Slack's v0 signature, written out here rather than through the code under test. */
function slackSigned(body: string, timestamp: string): Record<string, string> {
  const signature = `v0=${createHmac("sha256", SLACK_SECRET).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  return {
    "Content-Type": "application/x-www-form-urlencoded",
    "X-Slack-Request-Timestamp": timestamp,
    "X-Slack-Signature": signature,
  };
}

/** A Slack body for the request, made unique by `nonce` (the door refuses a replayed signature). */
function slackBody(request: FuzzRequest, fixture: FuzzFixture, nonce: number): string {
  const slack = request.slack;
  if (slack === undefined) return request.body ?? "";
  if (slack.kind === "command") {
    return new URLSearchParams({
      command: "/goal",
      text: `${fixture.goalId} redirect announce it elsewhere`,
      user_id: SLACK_APPROVER,
      response_url: slack.responseUrl,
      trigger_id: String(nonce),
    }).toString();
  }
  const payload = {
    type: "block_actions",
    user: { id: SLACK_APPROVER },
    actions: [{ action_id: "approve", value: fixture.approvalId }],
    response_url: slack.responseUrl,
    trigger_id: String(nonce),
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

function answerOf(result: APIGatewayProxyResult): FuzzAnswer {
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  return { status: result.statusCode, headers, body: result.body };
}

describe("the goals API and the doors' handlers under generated bad input (proxy events)", () => {
  let client: DynamoDBClient;
  let documents: DynamoDBDocumentClient;
  let stopDynamo: () => Promise<void>;
  const tableName = "fuzz-goals";
  let fixture: FuzzFixture;
  let goalsApi: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
  let slackDoor: SlackDoor;
  let emailDoor: EmailDoor;
  const responder = new RecordingResponder();
  const publisher = new RecordingPublisher();
  let sent = 0;

  beforeAll(async () => {
    const dynamo = await startDynalite();
    stopDynamo = dynamo.stop;
    client = dynamoClientFor(dynamo.endpoint);
    documents = documentClientFor(client);
    await createGoalTable(client, tableName);
    const store = new DynamoDbGoalStore({ client: documents, tableName });
    const logger = new Logger({ serviceName: "api-fuzz", logLevel: "SILENT" });
    // As the handler wires it: the goal history behind the steps, fork and replay routes.
    const stepLog = new DynamoDbStepLog({ client: documents, tableName });
    const workspace = new DynamoDbWorkspace({ client: documents, tableName });
    goalsApi = buildApi(store, {
      publisher,
      history: { history: stepLog, stepLog, workspace },
      // As the handler wires it: the tenants' items behind GET /tenants/me and POST /tenants/{id}/limits.
      tenants: { settings: DEFAULT_TENANTS_SETTINGS, store: new DynamoDbTenantStore(documents, tableName) },
    }).api;
    slackDoor = createSlackDoor({
      goals: store,
      publisher,
      replayGuard: new DynamoDbReplayGuard(documents, tableName),
      signingSecret: async () => SLACK_SECRET,
      responder,
      tenantId: TENANT,
      approverUserIds: new Set([SLACK_APPROVER]),
      now: () => NOW,
      newRevisionId: () => "rev-000000000000000000000000",
      logger,
    });
    emailDoor = createEmailDoor({
      goals: store,
      publisher,
      secret: async () => LINK_SECRET,
      approvers: emailApprovers(["ops@example.com"]),
      now: () => NOW,
      logger,
    });

    // A goal that waits on a pending approval: the noise must leave both as they are.
    const created = await goalsApi(
      apiEvent({ method: "POST", path: "/goals", body: aGoalSpec(), accountId: TENANT }),
    );
    const goalId = String(bodyOf(created).goalId);
    const approval = aPendingApproval(goalId, {
      approvalId: approvalIdFromBytes(randomBytes(16)),
      tenantId: TENANT,
      requestedAt: new Date(NOW.getTime() - 60_000).toISOString(),
      expiresAt: new Date(NOW.getTime() + 3_600_000).toISOString(),
    });
    await store.putApproval(approval);
    const stored = await store.getGoal(goalId);
    if (!stored) throw new Error("the fixture goal was not stored");
    const waiting = waitFor(
      stored.record,
      { kind: "approval", approvalId: approval.approvalId, reason: "irreversible tool notify" },
      { eventType: "Approval Decided", approvalId: approval.approvalId, revision: 1 },
      NOW,
    );
    await store.commit(waiting.record, stored.version, waiting.events);
    fixture = { goalId, approvalId: approval.approvalId };
  });

  afterAll(async () => {
    client?.destroy();
    await stopDynamo?.();
  });

  /** Every item of the table but the Slack replay guard's (which remembers refused signatures too, by design). */
  async function stored(): Promise<string> {
    const items: Record<string, unknown>[] = [];
    for await (const page of paginateScan(
      { client: documents },
      { TableName: tableName, ConsistentRead: true },
    )) {
      items.push(...(page.Items ?? []).filter((item) => !String(item.pk).startsWith("SLACK#")));
    }
    return JSON.stringify(items.map((item) => JSON.stringify(item)).sort());
  }

  async function send(request: FuzzRequest): Promise<FuzzAnswer> {
    sent += 1;
    const path = bind(request.path, fixture);
    const body = request.slack ? slackBody(request, fixture, sent) : bind(request.body, fixture);
    const event: APIGatewayProxyEvent = {
      ...apiEvent({ method: request.method, path, accountId: TENANT }),
      headers: {
        ...Object.fromEntries(request.headers),
        ...(request.slack ? slackSigned(body ?? "", String(Math.floor(NOW.getTime() / 1000))) : {}),
      },
      queryStringParameters: request.query.length === 0 ? null : Object.fromEntries(request.query),
      body: body ?? null,
    };
    if (path === "/slack/interactions" || path === "/slack/commands") return answerOf(await slackDoor(event));
    if (path.startsWith("/email/approvals/")) return answerOf(await emailDoor(event));
    return answerOf(await goalsApi(event));
  }

  it("answers every generated bad request with a right 4xx in the error shape, storing and posting nothing", async () => {
    // Act + Assess (per request, inside the property)
    await fuzzApi("handlers", badRequests({ routes: servedRoutes(), slack: true }), {
      seed: 29,
      numRuns: 400,
      send,
      stored,
    });

    // Assess: nothing reached the bus or a foreign response_url, and a normal goal is still taken
    expect(publisher.events).toEqual([]);
    expect(responder.posts).toEqual([]);
    const normal = await goalsApi(
      apiEvent({ method: "POST", path: "/goals", body: aGoalSpec(), accountId: TENANT }),
    );
    expect(normal.statusCode).toBe(202);
  });
});
