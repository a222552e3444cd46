import { randomUUID } from "node:crypto";
import { DynamoDbCapacityStore } from "../../lambdas/adapters/dynamodb/limits/dynamodb-capacity-store";
import {
  createFakeClockGoalTable,
  documentClientFor,
  dynamoClientFor,
  startDynalite,
} from "../support/dynamo-backends";
import { describeCapacityContract } from "./capacity-governor.contract";

describeCapacityContract("dynalite", async () => {
  const backend = await startDynalite();
  const client = dynamoClientFor(backend.endpoint);
  const tableName = `goals-${randomUUID()}`;
  await createFakeClockGoalTable(client, tableName);
  return {
    store: new DynamoDbCapacityStore(documentClientFor(client), tableName),
    close: async () => {
      client.destroy();
      await backend.stop();
    },
  };
});
