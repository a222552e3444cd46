import { type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { CorruptStoreItemError, isConditionalCheckFailed, toStoreError } from "./dynamodb-errors";
import { TABLE_DESIGN } from "./table-design";

const PK = TABLE_DESIGN.partitionKey;

export interface PutFirstInput {
  readonly tableName: string;
  /** The item's key attributes; `item` holds the rest. */
  readonly key: Readonly<Record<string, string>>;
  readonly item: Readonly<Record<string, unknown>>;
  /** The store operation, named in a failure. */
  readonly operation: string;
  /** What the item is, named when the stored one vanished (`Step 3 of goal g-1`). */
  readonly what: string;
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
  let stored: Record<string, unknown> | undefined;
  try {
    stored = (await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true })))
      .Item;
  } catch (error) {
    throw toStoreError(error, operation);
  }
  if (!stored) throw new CorruptStoreItemError(`${input.what} vanished after a conflicting put`);
  return stored;
}
