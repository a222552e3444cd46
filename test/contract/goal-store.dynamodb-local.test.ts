import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { dynamoClientFor, startDynamoDbLocal } from "../support/dynamo-backends";
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
