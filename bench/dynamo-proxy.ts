import { type RecordingProxy, startRecordingProxy } from "./recording-proxy";

/** One write request that reached DynamoDB, attributed to the goal whose partition it wrote. */
export interface StoreWrite {
  /** `PutItem`, `UpdateItem`, `DeleteItem`, `BatchWriteItem`. */
  readonly operation: string;
  readonly goalId: string | undefined;
  /** The item's sort key (`GOAL`, `EVT#…`, `STEP#…`, `CKPT#…`, `WS#…`, `WSV#…`, `OUTBOX#…`). */
  readonly sortKey: string;
  /** DynamoDB's item size of what was written (what write units are billed on). */
  readonly bytes: number;
  readonly at: number;
}

/** One request that reached DynamoDB, attributed to the goal whose partition it named. */
export interface StoreRequest {
  /** `GetItem`, `Query`, `PutItem`, `BatchWriteItem` … */
  readonly operation: string;
  readonly goalId: string | undefined;
  /** The first part of the partition key it names (`GOAL`, `APPROVAL`, `CAPACITY` …). */
  readonly partition: string | undefined;
  /** The kind of item it names: its sort key (or key condition's) up to the first `#` (`GOAL`, `STEP`, `CKPT` …). */
  readonly itemKind: string;
  /** When the proxy had the whole request, and when it had sent the whole answer (`Date.now()` ms, fractional). */
  readonly startedAt: number;
  endedAt: number | undefined;
}

export interface DynamoProxy extends RecordingProxy {
  readonly writes: StoreWrite[];
  readonly requests: StoreRequest[];
}

type AttributeValue = Record<string, unknown>;

/** Date.now() with performance.now()'s fraction: comparable with the executions' history timestamps. */
const wallClock = () => performance.timeOrigin + performance.now();

/**
 * DynamoDB's size of an attribute value: strings by UTF-8 length, binary by its raw length (the wire
 * form is base64), numbers about one byte per two digits plus one, maps and lists 3 bytes plus one
 * per element plus their contents.
 */
function valueSize(value: AttributeValue): number {
  const [type, inner] = Object.entries(value)[0] ?? ["NULL", true];
  switch (type) {
    case "S":
      return Buffer.byteLength(String(inner));
    case "B":
      return Buffer.from(String(inner), "base64").length;
    case "N":
      return Math.ceil(String(inner).replace(/^-|\./g, "").length / 2) + 1;
    case "BOOL":
    case "NULL":
      return 1;
    case "SS":
      return (inner as string[]).reduce((sum, item) => sum + Buffer.byteLength(item), 0);
    case "BS":
      return (inner as string[]).reduce((sum, item) => sum + Buffer.from(item, "base64").length, 0);
    case "NS":
      return (inner as string[]).reduce((sum, item) => sum + Math.ceil(item.length / 2) + 1, 0);
    case "L":
      return 3 + (inner as AttributeValue[]).reduce((sum, item) => sum + 1 + valueSize(item), 0);
    case "M":
      return 3 + itemSize(inner as Record<string, AttributeValue>) + Object.keys(inner as object).length;
    default:
      return Buffer.byteLength(JSON.stringify(inner));
  }
}

function itemSize(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value),
    0,
  );
}

function keyOf(item: Record<string, AttributeValue> | undefined) {
  const pk = item?.pk?.S;
  const sk = item?.sk?.S;
  const goalId = typeof pk === "string" && pk.startsWith("GOAL#") ? pk.slice(5) : undefined;
  return { goalId, sortKey: typeof sk === "string" ? sk : "" };
}

function writesOf(operation: string, body: Record<string, unknown>, at: number): StoreWrite[] {
  if (operation === "PutItem") {
    const item = body.Item as Record<string, AttributeValue>;
    return [{ operation, ...keyOf(item), bytes: itemSize(item), at }];
  }
  if (operation === "UpdateItem" || operation === "DeleteItem") {
    const key = body.Key as Record<string, AttributeValue>;
    const values = (body.ExpressionAttributeValues ?? {}) as Record<string, AttributeValue>;
    const bytes = operation === "DeleteItem" ? 0 : itemSize(key) + itemSize(values);
    return [{ operation, ...keyOf(key), bytes, at }];
  }
  if (operation === "BatchWriteItem") {
    const requests = Object.values(
      (body.RequestItems ?? {}) as Record<
        string,
        { PutRequest?: { Item: Record<string, AttributeValue> } }[]
      >,
    ).flat();
    return requests.flatMap((request) =>
      request.PutRequest
        ? [{ operation, ...keyOf(request.PutRequest.Item), bytes: itemSize(request.PutRequest.Item), at }]
        : [],
    );
  }
  return [];
}

/** The partition key a request's key, item, key condition or first batched item names. */
function partitionOfRequest(body: Record<string, unknown>): string | undefined {
  const values = body.ExpressionAttributeValues as Record<string, AttributeValue> | undefined;
  const batched = Object.values((body.RequestItems ?? {}) as Record<string, unknown[]>).flat()[0] as
    | { PutRequest?: { Item: Record<string, AttributeValue> } }
    | undefined;
  const pk = [
    (body.Key as Record<string, AttributeValue> | undefined)?.pk?.S,
    (body.Item as Record<string, AttributeValue> | undefined)?.pk?.S,
    values?.[":pk"]?.S,
    batched?.PutRequest?.Item.pk?.S,
  ].find((value) => typeof value === "string");
  return typeof pk === "string" ? pk.split("#")[0] : undefined;
}

/** The first part of the sort key a request's key, item, key condition or first batched item names. */
function itemKindOfRequest(body: Record<string, unknown>): string {
  const values = body.ExpressionAttributeValues as Record<string, AttributeValue> | undefined;
  const batched = Object.values((body.RequestItems ?? {}) as Record<string, unknown[]>).flat()[0] as
    | {
        PutRequest?: { Item: Record<string, AttributeValue> };
        DeleteRequest?: { Key: Record<string, AttributeValue> };
      }
    | undefined;
  const transacted = (
    body.TransactItems as
      | Record<string, { Key?: Record<string, AttributeValue>; Item?: Record<string, AttributeValue> }>[]
      | undefined
  )?.map((item) => Object.values(item)[0]);
  const sortKeys = [
    (body.Key as Record<string, AttributeValue> | undefined)?.sk?.S,
    (body.Item as Record<string, AttributeValue> | undefined)?.sk?.S,
    // A query's sort key condition (`begins_with(sk, :prefix)`, `sk BETWEEN :from AND :to`).
    ...(String(body.KeyConditionExpression ?? "").match(/:\w+/g) ?? [])
      .filter((name) => name !== ":pk")
      .map((name) => values?.[name]?.S),
    batched?.PutRequest?.Item.sk?.S,
    batched?.DeleteRequest?.Key.sk?.S,
    ...(transacted ?? []).map((item) => (item?.Key ?? item?.Item)?.sk?.S),
  ].filter((value): value is string => typeof value === "string");
  const kinds = [...new Set(sortKeys.map((key) => key.split("#")[0]))];
  return kinds.join("+");
}

/** The goal a request's key, item, key condition or first batched item names. */
function goalOfRequest(body: Record<string, unknown>): string | undefined {
  const values = body.ExpressionAttributeValues as Record<string, AttributeValue> | undefined;
  const batched = Object.values((body.RequestItems ?? {}) as Record<string, unknown[]>).flat()[0] as
    | { PutRequest?: { Item: Record<string, AttributeValue> } }
    | undefined;
  const candidates = [
    keyOf(body.Key as Record<string, AttributeValue> | undefined).goalId,
    keyOf(body.Item as Record<string, AttributeValue> | undefined).goalId,
    keyOf(values?.[":pk"] ? { pk: values[":pk"] } : undefined).goalId,
    keyOf(batched?.PutRequest?.Item).goalId,
  ];
  return candidates.find((goalId) => goalId !== undefined);
}

/**
 * An HTTP proxy in front of the local DynamoDB that records every request and every write (the
 * functions reach it through AWS_ENDPOINT_URL_DYNAMODB): the goal store's requests and bytes per
 * iteration are measured on the wire, as DynamoDB would bill them, without touching the store's code.
 */
export async function startDynamoProxy(): Promise<DynamoProxy> {
  const writes: StoreWrite[] = [];
  const requests: StoreRequest[] = [];
  const proxy = await startRecordingProxy({
    rewriteHost: true,
    record: (req, body) => {
      const operation = String(req.headers["x-amz-target"] ?? "").split(".")[1] ?? "";
      try {
        const parsed = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
        const request: StoreRequest = {
          operation,
          goalId: goalOfRequest(parsed),
          partition: partitionOfRequest(parsed),
          itemKind: itemKindOfRequest(parsed),
          startedAt: wallClock(),
          endedAt: undefined,
        };
        requests.push(request);
        if (/^(PutItem|UpdateItem|DeleteItem|BatchWriteItem)$/.test(operation)) {
          writes.push(...writesOf(operation, parsed, performance.now()));
        }
        return () => {
          request.endedAt = wallClock();
        };
      } catch {
        // A body we cannot read is still forwarded; DynamoDB answers it.
        return undefined;
      }
    },
  });
  return Object.assign(proxy, { writes, requests });
}
