import { type DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { toStoreError } from "../shared/store-errors";
import { goalKey } from "./goal-table-keys";
import { TABLE_DESIGN } from "./table-design";

const PK = TABLE_DESIGN.partitionKey;
const SK = TABLE_DESIGN.sortKey;

export interface GoalPartitionQuery {
  readonly tableName: string;
  readonly goalId: string;
  /** Sort key prefix of one item kind (`WS#`, `STEP#`, `OUTBOX#`). */
  readonly prefix: string;
  /** Only the sort keys from `from` to `to` (inclusive; both starting with `prefix`). @default all of the kind */
  readonly between?: { readonly from: string; readonly to: string };
  /** Top-level attributes to read; all when absent. */
  readonly attributes?: readonly string[];
  /** Descending sort key order. @default false */
  readonly newestFirst?: boolean;
  /** Stop after this many items; all when absent. */
  readonly limit?: number;
  /** Names the operation in a wrapped error. */
  readonly operation: string;
}

/**
 * The items of one kind in a goal's partition, in sort key order, following every page: a page
 * ends at 1 MB, so `Limit` alone does not bound what one page returns, nor guarantee it is full.
 */
export async function queryGoalPartition(
  client: DynamoDBDocumentClient,
  query: GoalPartitionQuery,
): Promise<Record<string, unknown>[]> {
  const names: Record<string, string> = { "#pk": PK, "#sk": SK };
  // Attribute names go through placeholders: `path` and `size` are DynamoDB reserved words.
  const projection = query.attributes?.map((attribute, index) => {
    names[`#a${index}`] = attribute;
    return `#a${index}`;
  });
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  try {
    do {
      const remaining = query.limit === undefined ? undefined : query.limit - items.length;
      const output = await client.send(
        new QueryCommand({
          TableName: query.tableName,
          ExpressionAttributeNames: names,
          ...keyCondition(query),
          ProjectionExpression: projection?.join(", "),
          ScanIndexForward: !query.newestFirst,
          Limit: remaining,
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      items.push(...(output.Items ?? []));
      startKey = output.LastEvaluatedKey;
    } while (startKey && (query.limit === undefined || items.length < query.limit));
  } catch (error) {
    throw toStoreError(error, query.operation);
  }
  return items;
}

function keyCondition(query: GoalPartitionQuery) {
  const pk = goalKey(query.goalId)[PK];
  const { between } = query;
  return between === undefined
    ? {
        KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
        ExpressionAttributeValues: { ":pk": pk, ":prefix": query.prefix },
      }
    : {
        KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :from AND :to",
        ExpressionAttributeValues: { ":pk": pk, ":from": between.from, ":to": between.to },
      };
}
