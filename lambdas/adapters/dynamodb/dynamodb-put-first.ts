import { type DynamoDBDocumentClient, PutCommand } from "@aws-sdk/lib-dynamodb";
import { CorruptStoreItemError, isConditionalCheckFailed, toStoreError } from "../shared/store-errors";
import { getItemConsistently } from "./dynamodb-get-item";
import { TABLE_DESIGN } from "./table-design";

const PK = TABLE_DESIGN.partitionKey;
const SK = TABLE_DESIGN.sortKey;

export interface PutFirstInput {
  readonly tableName: string;
  /** The item's key attributes; `item` holds the rest. */
  readonly key: Readonly<Record<string, string>>;
  readonly item: Readonly<Record<string, unknown>>;
  /** The store operation, named in a failure. */
  readonly operation: string;
}

/**
 * Puts an item unless one with its key exists: the first writer wins. Answers undefined when this
 * put wrote it, else the stored item (read consistently), so a retried or racing writer gets what
 * the first one wrote. A new item, the common case, costs the one conditional put.
 */
export async function putFirst(
  client: DynamoDBDocumentClient,
  input: PutFirstInput,
): Promise<Record<string, unknown> | undefined> {
  const { tableName, key, item, operation } = input;
  try {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...item, ...key },
        ConditionExpression: "attribute_not_exists(#pk)",
        ExpressionAttributeNames: { "#pk": PK },
      }),
    );
    return undefined;
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw toStoreError(error, operation);
  }
  const stored = await getItemConsistently(client, tableName, key, operation);
  if (!stored) {
    throw new CorruptStoreItemError(
      `${operation}: item ${key[PK]} ${key[SK]} vanished after a conflicting put`,
    );
  }
  return stored;
}
