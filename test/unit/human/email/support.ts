import { randomBytes, randomUUID } from "node:crypto";
import { Logger } from "@aws-lambda-powertools/logger";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { DynamoDbGoalStore } from "../../../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { approvalIdFromBytes } from "../../../../lambdas/core/goal/goal-ids";
import type { GoalRecord } from "../../../../lambdas/core/goal/goal-record";
import { GoalSpecSchema } from "../../../../lambdas/core/goal/goal-spec";
import type { HumanInputEvent } from "../../../../lambdas/core/human/human-input-events";
import type { Approval } from "../../../../lambdas/core/ports/goal-store";
import type { HumanInputPublisher } from "../../../../lambdas/core/ports/human-input-publisher";
import { createGoalTable } from "../../../../lib/local/storage/create-goal-table";
import { documentClientFor, dynamoClientFor, startDynalite } from "../../../support/dynamo-backends";
import { aGoalRecord } from "../../../support/goal-record-builder";
import { proxyEvent } from "../../../support/proxy-event";

export const LINK_SECRET = "test-link-secret-0123456789abcdef0123456789";
export const BASE_URL = "https://api.example.test/v1/";
export const NOW = new Date("2026-03-01T09:30:00.000Z");
export const EXPIRES_AT = new Date("2026-03-01T10:00:00.000Z");
/** A task token no page, link, email or event may ever show. */
export const TASK_TOKEN = `AAAAKgAAAAIAAAAA-task-token-${randomUUID()}`;
/** Markup in goal text: every page must show it as text. */
export const HOSTILE_OBJECTIVE = `Ship <script>alert("x")</script> & 'release' <b>now</b>`;
export const APPROVER = "alice@example.test";

/** Records every event; the door's publisher in tests. */
export class RecordingPublisher implements HumanInputPublisher {
  readonly events: HumanInputEvent[] = [];
  async publish(event: HumanInputEvent): Promise<void> {
    this.events.push(event);
  }
}

export const silentLogger = () => new Logger({ serviceName: "email-door-test", logLevel: "SILENT" });

/** dynalite with a fresh goal table and the real store on it. */
export async function startStore(): Promise<{ store: DynamoDbGoalStore; stop(): Promise<void> }> {
  const backend = await startDynalite();
  const client: DynamoDBClient = dynamoClientFor(backend.endpoint);
  const tableName = `goals-${randomUUID()}`;
  await createGoalTable(client, tableName);
  return {
    store: new DynamoDbGoalStore({ client: documentClientFor(client), tableName }),
    async stop() {
      client.destroy();
      await backend.stop();
    },
  };
}

/** A goal waiting for approval by email, whose objective holds markup. */
export function aWaitingGoal(): GoalRecord {
  const base = aGoalRecord();
  return aGoalRecord({
    goalId: base.goalId,
    spec: GoalSpecSchema.parse({
      ...base.spec,
      objective: HOSTILE_OBJECTIVE,
      approval: { channels: ["email"], email: APPROVER },
    }),
  });
}

export function aPendingApproval(goalId: string, overrides: Partial<Approval> = {}): Approval {
  return {
    approvalId: approvalIdFromBytes(randomBytes(16)),
    goalId,
    tenantId: "tenant-a",
    runId: "r1",
    status: "pending",
    action: {
      kind: "tool",
      summary: `notify #ops "<img src=x onerror=alert(1)>"`,
      fingerprint: "notify:abc",
    },
    revision: 1,
    taskToken: TASK_TOKEN,
    requestedAt: "2026-03-01T09:00:00.000Z",
    expiresAt: EXPIRES_AT.toISOString(),
    ...overrides,
  };
}

/** The REST (v1) proxy event API Gateway sends for a link (its URL) and a method. */
export function linkEvent(method: "GET" | "POST" | "PUT", link: string, body?: string): APIGatewayProxyEvent {
  const url = new URL(link);
  const path = url.pathname.replace(/^\/v1/, "");
  const approvalId = decodeURIComponent(path.split("/").at(-1) ?? "");
  const query = Object.fromEntries(url.searchParams);
  return proxyEvent({
    method,
    path,
    resource: "/email/approvals/{approvalId}",
    pathParameters: { approvalId },
    headers: body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" },
    query: Object.keys(query).length === 0 ? null : query,
    body: body ?? null,
    sourceIp: "203.0.113.9",
    userAgent: "mail-scanner",
    now: NOW,
  });
}
