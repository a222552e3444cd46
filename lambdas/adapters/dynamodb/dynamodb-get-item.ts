import { type DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { toStoreError } from "../shared/store-errors";

/**
 * One item by its key, read consistently: a step reads back what it or a racing writer has just
 * written. Undefined when there is none; a failure is the store error naming `operation`.
 */
export async function getItemConsistently(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: Readonly<Record<string, string>>,
  operation: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    const output = await client.send(
      new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
    );
    return output.Item;
  } catch (error) {
    throw toStoreError(error, operation);
  }
}
