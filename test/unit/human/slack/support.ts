import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { Logger } from "@aws-lambda-powertools/logger";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { DynamoDbReplayGuard } from "../../../../lambdas/adapters/dynamodb/slack-replay-guard";
import {
  createGoalStoreAdapters,
  type GoalStoreAdapters,
} from "../../../../lambdas/adapters/goal-store-adapters";
import type { SlackResponder } from "../../../../lambdas/adapters/slack/slack-responder";
import { createGoalRecord } from "../../../../lambdas/core/goal/create-goal";
import { approvalIdFromBytes, goalIdFromBytes } from "../../../../lambdas/core/goal/goal-ids";
import type { GoalRecord } from "../../../../lambdas/core/goal/goal-record";
import { type GoalSpecInput, parseGoalSpec } from "../../../../lambdas/core/goal/goal-spec";
import type { HumanInputEvent } from "../../../../lambdas/core/human/human-input-events";
import type { Approval } from "../../../../lambdas/core/ports/goal-store";
import type { HumanInputPublisher } from "../../../../lambdas/core/ports/human-input-publisher";
import { createSlackDoor, type SlackDoor } from "../../../../lambdas/handlers/human/slack/create-slack-door";
import type { SlackDoorDeps } from "../../../../lambdas/handlers/human/slack/slack-door-deps";
import { createGoalTable } from "../../../../lib/local/storage/create-goal-table";
import { documentClientFor, dynamoClientFor, startDynalite } from "../../../support/dynamo-backends";
import { proxyEvent } from "../../../support/proxy-event";

/** Slack's worked example (docs.slack.dev, "Verifying requests from Slack"), byte for byte. */
export const SLACK_DOC_EXAMPLE = {
  signingSecret: "8f742231b10e8888abcd99yyyzzz85a5",
  timestamp: "1531420618",
  body:
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&" +
    "channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&" +
    "response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&" +
    "trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
} as const;

export const SIGNING_SECRET = `slack-secret-${randomUUID()}`;
/** Before the test approvals expire (requested 09:00, valid one hour). */
export const NOW = new Date("2026-03-01T09:30:00.000Z");
export const NOW_SECONDS = String(Math.floor(NOW.getTime() / 1000));
export const SECRET_TOKEN = `task-token-${randomUUID()}-never-shown`;

/** Signs as Slack documents it, written out here rather than through the code under test. */
export function signAsSlack(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

export class RecordingPublisher implements HumanInputPublisher {
  readonly events: HumanInputEvent[] = [];
  async publish(event: HumanInputEvent): Promise<void> {
    this.events.push(event);
  }
}

export class RecordingResponder implements SlackResponder {
  readonly posts: { url: string; message: Record<string, unknown> }[] = [];
  async respond(url: string, message: Record<string, unknown>): Promise<void> {
    this.posts.push({ url, message });
  }
}

export function aPendingApproval(
  goalId: string,
  tenantId: string,
  overrides: Partial<Approval> = {},
): Approval {
  const requestedAt = new Date("2026-03-01T09:00:00.000Z");
  return {
    approvalId: approvalIdFromBytes(randomBytes(16)),
    goalId,
    tenantId,
    runId: "r1",
    status: "pending",
    action: { kind: "tool", summary: "notify <!channel> on #ops: release 1.2", fingerprint: "notify:abc" },
    revision: 1,
    taskToken: SECRET_TOKEN,
    requestedAt: requestedAt.toISOString(),
    expiresAt: new Date(requestedAt.getTime() + 3_600_000).toISOString(),
    ...overrides,
  };
}

/** dynalite with a fresh goal table, the real adapters, and what the replay guard needs. */
export interface SlackTable {
  readonly adapters: GoalStoreAdapters;
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  stop(): Promise<void>;
}

export async function startSlackTable(): Promise<SlackTable> {
  const backend = await startDynalite();
  const dynamo = dynamoClientFor(backend.endpoint);
  const tableName = `goals-${randomUUID()}`;
  await createGoalTable(dynamo, tableName);
  const client = documentClientFor(dynamo);
  return {
    adapters: createGoalStoreAdapters({ client, tableName }),
    client,
    tableName,
    async stop() {
      dynamo.destroy();
      await backend.stop();
    },
  };
}

export const TENANT = "123456789012";
/** The one configured approver: clickBody and commandBody act as this user unless told otherwise. */
export const APPROVER = "U0ANA";

export function aSpec(overrides: Partial<GoalSpecInput> = {}): GoalSpecInput {
  return {
    objective: "Announce release 1.2 to <!channel> in #ops",
    pattern: "react",
    successChecks: [
      {
        id: "announced",
        description: "the release note was sent",
        verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
      },
    ],
    ...overrides,
  };
}

/** A running goal of `tenantId`, stored. */
export async function createGoal(table: SlackTable, tenantId = TENANT, spec = aSpec()): Promise<GoalRecord> {
  const { record, events } = createGoalRecord({
    spec: parseGoalSpec(spec),
    goalId: goalIdFromBytes(randomBytes(16)),
    tenantId,
    runId: "r1",
    now: new Date("2026-03-01T08:00:00.000Z"),
    pattern: "react",
    patternReason: "requested",
  });
  return (await table.adapters.goals.createGoal(record, events)).record;
}

export interface DoorHarness {
  readonly door: SlackDoor;
  readonly publisher: RecordingPublisher;
  readonly responder: RecordingResponder;
}

/**
 * The Slack door over the real goal table (dynalite), a recording publisher and a fixed clock,
 * bound to TENANT with APPROVER as its one approver.
 */
export function buildDoor(table: SlackTable, overrides: Partial<SlackDoorDeps> = {}): DoorHarness {
  const publisher = new RecordingPublisher();
  const responder = new RecordingResponder();
  const door = createSlackDoor({
    goals: table.adapters.goals,
    publisher,
    replayGuard: new DynamoDbReplayGuard(table.client, table.tableName),
    signingSecret: async () => SIGNING_SECRET,
    responder,
    now: () => NOW,
    newRevisionId: () => `rev-${randomUUID()}`,
    logger: new Logger({ serviceName: "slack-door-test", logLevel: "SILENT" }),
    tenantId: TENANT,
    approverUserIds: new Set([APPROVER]),
    ...overrides,
  });
  return { door, publisher, responder };
}

export interface SignedRequest {
  readonly path: string;
  readonly body: string;
  readonly timestamp?: string;
  /** Replaces the correct signature. */
  readonly signature?: string;
  readonly secret?: string;
}

/** A REST (v1) proxy event of a Slack request, signed with SIGNING_SECRET unless told otherwise. */
export function slackEvent(request: SignedRequest): APIGatewayProxyEvent {
  const timestamp = request.timestamp ?? NOW_SECONDS;
  const signature =
    request.signature ?? signAsSlack(request.secret ?? SIGNING_SECRET, timestamp, request.body);
  return proxyEvent({
    method: "POST",
    path: request.path,
    resource: request.path,
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "X-Slack-Request-Timestamp": timestamp,
      "X-Slack-Signature": signature,
    },
    body: request.body,
    sourceIp: "3.3.3.3",
    userAgent: "Slackbot 1.0 (+https://api.slack.com/robots)",
    now: NOW,
  });
}

/**
 * A block_actions interaction body: one click on `actionId` with `value` in `channelId`,
 * form-encoded as Slack sends it (the channel both as `channel` and in the message's `container`).
 */
export function clickBody(
  actionId: string,
  value: string,
  userId = "U0ANA",
  responseUrl = "https://hooks.slack.com/actions/T0TEAM/1/abc",
  channelId = "C0OPS",
): string {
  const payload = {
    type: "block_actions",
    user: { id: userId, username: "ana", team_id: "T0TEAM" },
    team: { id: "T0TEAM", domain: "acme" },
    actions: [
      { type: "button", action_id: actionId, block_id: "approval", value, action_ts: "1772357400.1" },
    ],
    response_url: responseUrl,
    channel: { id: channelId, name: "ops" },
    container: { type: "message", message_ts: "1772357000.000100", channel_id: channelId },
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** A `/goal` slash command body from `channelId`, form-encoded as Slack sends it. */
export function commandBody(
  text: string,
  userId = "U0ANA",
  responseUrl = "https://hooks.slack.com/commands/T0TEAM/1/abc",
  channelId = "C0OPS",
): string {
  return new URLSearchParams({
    token: "deprecated-verification-token",
    team_id: "T0TEAM",
    channel_id: channelId,
    user_id: userId,
    user_name: "ana",
    command: "/goal",
    text,
    response_url: responseUrl,
    trigger_id: "1.2.3",
  }).toString();
}

export function jsonBody(result: APIGatewayProxyResult): Record<string, unknown> {
  const parsed: unknown = JSON.parse(result.body);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`expected a JSON object body, got ${result.body}`);
  }
  return parsed as Record<string, unknown>;
}
