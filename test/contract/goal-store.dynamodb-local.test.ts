import { randomUUID } from "node:crypto";
import { GetItemCommand, ListTablesCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { TABLE_DESIGN } from "../../lambdas/adapters/dynamodb/table-design";
import { createGoalTable } from "../../lib/local/storage/create-goal-table";
import { createFakeClockGoalTable, dynamoClientFor, startDynamoDbLocal } from "../support/dynamo-backends";
import { describeGoalStoreContract } from "./goal-store.contract";

describeGoalStoreContract("DynamoDB Local", startDynamoDbLocal);

describe("DynamoDB Local leases", () => {
  it("share one JVM per process: ending a lease, even twice, leaves it answering the others", async () => {
    const first = await startDynamoDbLocal();
    const second = await startDynamoDbLocal();
    expect(second.endpoint).toBe(first.endpoint);

    await first.stop();
    await first.stop();

    const client = dynamoClientFor(second.endpoint);
    try {
      const { TableNames } = await client.send(new ListTablesCommand({}));
      expect(TableNames).toEqual(expect.any(Array));
    } finally {
      client.destroy();
      await second.stop();
    }
  });
});

describe("DynamoDB Local's TTL job", () => {
  it("deletes an item whose ttl is in the real past, but not from a table made for a fake clock", async () => {
    // Prepare: the same item, in the status index and expired on 2026-03-31 (an approval's ttl on
    // the tests' clock), in a table as the local runtime makes it and in a fake-clock one
    const backend = await startDynamoDbLocal();
    const client = dynamoClientFor(backend.endpoint);
    const { partitionKey, sortKey, statusIndex, ttlAttribute } = TABLE_DESIGN;
    const key = { [partitionKey]: { S: "APPROVAL#ap-1" }, [sortKey]: { S: "APPROVAL" } };
    const item = {
      ...key,
      [statusIndex.partitionKey]: { S: "APPROVALS#pending" },
      [statusIndex.sortKey]: { S: "2026-03-01T09:00:00.000Z" },
      [ttlAttribute]: { N: String(Date.parse("2026-03-31T00:00:00Z") / 1000) },
    };
    const expiring = `goals-${randomUUID()}`;
    const fakeClock = `goals-${randomUUID()}`;
    const stored = async (tableName: string) =>
      (await client.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true })))
        .Item !== undefined;
    try {
      await createGoalTable(client, expiring);
      await createFakeClockGoalTable(client, fakeClock);
      for (const tableName of [expiring, fakeClock])
        await client.send(new PutItemCommand({ TableName: tableName, Item: item }));

      // Act: wait until the job has been through the table with TTL on (it sleeps 10 s after deleting)
      const deadline = Date.now() + 25_000;
      while ((await stored(expiring)) && Date.now() < deadline)
        await new Promise((resolveDelay) => setTimeout(resolveDelay, 200));

      // Assess: gone there, kept in the fake-clock table
      expect(await stored(expiring)).toBe(false);
      expect(await stored(fakeClock)).toBe(true);
    } finally {
      client.destroy();
      await backend.stop();
    }
  }, 40_000);
});
