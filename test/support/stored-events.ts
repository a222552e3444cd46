import { type DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { documentOf } from "../../lambdas/adapters/dynamodb/dynamodb-items";
import { goalKey } from "../../lambdas/adapters/dynamodb/goal-table-keys";

/**
 * The sequence numbers of a goal's event items as they are in the table, read past the store (whose
 * listing fills and writes back what is missing from the goal item's outbox).
 */
export async function storedEventSeqs(
  documents: DynamoDBDocumentClient,
  tableName: string,
  goalId: string,
): Promise<number[]> {
  const output = await documents.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :events)",
      ExpressionAttributeValues: { ":pk": goalKey(goalId).pk, ":events": "EVT#" },
      ConsistentRead: true,
    }),
  );
  // From record schema 3 an event item holds the event encoded in its `event` attribute.
  return (output.Items ?? []).map((item) =>
    Number((documentOf(item.event, "event") as { seq?: unknown })?.seq ?? item.seq),
  );
}
