import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { PARTITION_PREFIXES, TABLE_DESIGN } from "./table-design";

export interface ItemRetentionOptions {
  /** `data.goalRetentionDays` (GOAL_RETENTION_DAYS): days an item lives after it is written. */
  readonly days: number;
  readonly now?: () => Date;
}

type Item = Record<string, unknown>;

const isItem = (value: unknown): value is Item =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The items a goal's retention covers: the goal and everything of it, and its approvals. */
const RETAINED = [PARTITION_PREFIXES.goal, PARTITION_PREFIXES.approval];

/**
 * The goals' retention on a document client: every goal or approval item it puts (alone or in a
 * batch) gets the table's TTL at most `days` after now, so DynamoDB deletes it then unless it is
 * written again (the goal record is, at every change). An item with an earlier TTL of its own (a
 * checkpoint, a decided approval) keeps it. Middleware, as the large-item offload is, so no
 * adapter has to remember it.
 */
export function withItemRetention(
  client: DynamoDBDocumentClient,
  options: ItemRetentionOptions,
): DynamoDBDocumentClient {
  const now = options.now ?? (() => new Date());
  const stamp = (item: Item): Item => {
    const pk = item[TABLE_DESIGN.partitionKey];
    if (typeof pk !== "string" || !RETAINED.some((prefix) => pk.startsWith(prefix))) return item;
    const limit = Math.ceil(now().getTime() / 1000) + options.days * 86_400;
    const own = item[TABLE_DESIGN.ttlAttribute];
    return { ...item, [TABLE_DESIGN.ttlAttribute]: typeof own === "number" ? Math.min(own, limit) : limit };
  };
  const stampInput = (input: Item): Item => {
    if (isItem(input.Item)) return { ...input, Item: stamp(input.Item) };
    if (!isItem(input.RequestItems)) return input;
    const RequestItems = Object.fromEntries(
      Object.entries(input.RequestItems).map(([table, requests]) => [
        table,
        Array.isArray(requests)
          ? requests.map((request: unknown) =>
              isItem(request) && isItem(request.PutRequest) && isItem(request.PutRequest.Item)
                ? { ...request, PutRequest: { ...request.PutRequest, Item: stamp(request.PutRequest.Item) } }
                : request,
            )
          : requests,
      ]),
    );
    return { ...input, RequestItems };
  };
  client.middlewareStack.add(
    (next) => (args) => next({ ...args, input: isItem(args.input) ? stampInput(args.input) : args.input }),
    // Before the large-item offload (also at initialize): the TTL stays inline.
    { step: "initialize", name: "goalLoopsItemRetention", priority: "high", override: true },
  );
  return client;
}
