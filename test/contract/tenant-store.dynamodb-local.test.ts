import { randomUUID } from "node:crypto";
import { DynamoDbTenantStore } from "../../lambdas/adapters/dynamodb/limits/dynamodb-tenant-store";
import {
  createFakeClockGoalTable,
  documentClientFor,
  dynamoClientFor,
  startDynamoDbLocal,
} from "../support/dynamo-backends";
import { describeTenantStoreContract } from "./tenant-store.contract";

describeTenantStoreContract("DynamoDB Local", async () => {
  const backend = await startDynamoDbLocal();
  const client = dynamoClientFor(backend.endpoint);
  const tableName = `goals-${randomUUID()}`;
  await createFakeClockGoalTable(client, tableName);
  return {
    store: new DynamoDbTenantStore(documentClientFor(client), tableName),
    close: async () => {
      client.destroy();
      await backend.stop();
    },
  };
});
