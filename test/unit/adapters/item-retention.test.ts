import { randomUUID } from "node:crypto";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withItemRetention } from "../../../lambdas/adapters/dynamodb/item-retention";
import { createGoalTable } from "../../../lib/local/storage/create-goal-table";
import {
  type DynamoBackend,
  documentClientFor,
  dynamoClientFor,
  startDynalite,
} from "../../support/dynamo-backends";

describe("withItemRetention", () => {
  const tableName = `goals-${randomUUID()}`;
  const NOW = Date.parse("2026-12-07T10:00:00Z");
  let backend: DynamoBackend;
  let client: ReturnType<typeof dynamoClientFor>;

  beforeAll(async () => {
    backend = await startDynalite();
    client = dynamoClientFor(backend.endpoint);
    await createGoalTable(client, tableName);
  });

  afterAll(async () => {
    client?.destroy();
    await backend?.stop();
  });

  async function putAndRead(item: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    const documents = withItemRetention(documentClientFor(dynamoClientFor(backend.endpoint)), {
      days: 30,
      now: () => new Date(NOW),
    });
    await documents.send(new PutCommand({ TableName: tableName, Item: item }));
    const read = await documents.send(
      new GetCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk } }),
    );
    return read.Item;
  }

  it("stamps a goal's items and an approval with a TTL the retention's days after they were written", async () => {
    // Act
    const goal = await putAndRead({ pk: "GOAL#g-1", sk: "GOAL", version: 1 });
    const approval = await putAndRead({ pk: "APPROVAL#ap-1", sk: "APPROVAL" });

    // Assess
    expect(goal?.ttl).toBe(NOW / 1000 + 30 * 86_400);
    expect(approval?.ttl).toBe(NOW / 1000 + 30 * 86_400);
  });

  it("keeps an item's own earlier TTL, and leaves the deployment's shared items alone", async () => {
    // Act
    const checkpoint = await putAndRead({
      pk: "GOAL#g-2",
      sk: "CKPT#reason#r1#0#0",
      ttl: NOW / 1000 + 86_400,
    });
    const lane = await putAndRead({ pk: "CAPACITY#m", sk: "LANE#0", requestTatMs: 1 });

    // Assess
    expect(checkpoint?.ttl).toBe(NOW / 1000 + 86_400);
    expect(lane?.ttl).toBeUndefined();
  });
});
