import { type DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type {
  CapacityStore,
  LaneChange,
  LaneState,
  ModelCapacityState,
  RateState,
  TatChange,
} from "../../../core/ports/capacity-store";
import * as z from "../../../core/zod";
import { CorruptStoreItemError, isConditionalCheckFailed, toStoreError } from "../../shared/store-errors";
import { PARTITION_PREFIXES, TABLE_DESIGN } from "../table-design";

const PK = TABLE_DESIGN.partitionKey;
const SK = TABLE_DESIGN.sortKey;
const LANE_PREFIX = "LANE#";
const RATE_SK = "RATE";

const LaneItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    [SK]: z.string().check(z.startsWith(LANE_PREFIX)),
    // A lane only ever settled (an ADD) before its first booking has no request TAT yet.
    requestTatMs: z._default(z.number(), 0),
    tokenTatMs: z._default(z.number(), 0),
  }),
);
const RateItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ factor: z.number().check(z.positive(), z.lte(1)), sinceMs: z.number() }),
);

/**
 * The capacity governor's state in the goal table: one partition per model (`CAPACITY#{modelId}`)
 * holding a few lane items and the rate. One strongly consistent Query reads a model; a booking is
 * one conditional UpdateItem on one lane item, an ADD while the lane is busy (so bookings do not
 * refuse each other), answering the lane's new TATs; a settlement is an atomic ADD. No lock item.
 */
export class DynamoDbCapacityStore implements CapacityStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async read(modelId: string): Promise<ModelCapacityState> {
    let items: Record<string, unknown>[];
    try {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "#pk = :pk",
          ExpressionAttributeNames: { "#pk": PK },
          ExpressionAttributeValues: { ":pk": partitionOf(modelId) },
          ConsistentRead: true,
        }),
      );
      items = output.Items ?? [];
    } catch (error) {
      throw toStoreError(error, "capacity read");
    }
    const lanes = new Map<number, LaneState>();
    let rate: RateState | undefined;
    for (const item of items) {
      if (item[SK] === RATE_SK) rate = parseItem(RateItemSchema, item, modelId);
      else {
        const lane = parseItem(LaneItemSchema, item, modelId);
        const index = Number(lane[SK].slice(LANE_PREFIX.length));
        lanes.set(index, { requestTatMs: lane.requestTatMs, tokenTatMs: lane.tokenTatMs });
      }
    }
    return { lanes, ...(rate === undefined ? {} : { rate }) };
  }

  async book(modelId: string, lane: number, change: LaneChange): Promise<LaneState | undefined> {
    const request = tatClause("requestTatMs", ":r", change.request);
    const tokens = tatClause("tokenTatMs", ":t", change.tokens);
    const sets = [request.set, tokens.set].filter((clause) => clause !== undefined);
    const adds = [request.add, tokens.add].filter((clause) => clause !== undefined);
    try {
      const output = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PK]: partitionOf(modelId), [SK]: `${LANE_PREFIX}${lane}` },
          UpdateExpression: [
            sets.length === 0 ? "" : `SET ${sets.join(", ")}`,
            adds.length === 0 ? "" : `ADD ${adds.join(", ")}`,
          ]
            .filter((part) => part !== "")
            .join(" "),
          ConditionExpression: `(${request.condition}) AND (${tokens.condition})`,
          ExpressionAttributeValues: { ...request.values, ...tokens.values },
          ReturnValues: "ALL_NEW",
        }),
      );
      const booked = parseItem(LaneItemSchema, output.Attributes ?? {}, modelId);
      return { requestTatMs: booked.requestTatMs, tokenTatMs: booked.tokenTatMs };
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw toStoreError(error, "capacity booking");
    }
  }

  async adjustTokens(modelId: string, lane: number, deltaMs: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PK]: partitionOf(modelId), [SK]: `${LANE_PREFIX}${lane}` },
          UpdateExpression: "ADD tokenTatMs :delta",
          ExpressionAttributeValues: { ":delta": deltaMs },
        }),
      );
    } catch (error) {
      throw toStoreError(error, "capacity settlement");
    }
  }

  async setRate(modelId: string, expected: RateState | undefined, next: RateState): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { [PK]: partitionOf(modelId), [SK]: RATE_SK, factor: next.factor, sinceMs: next.sinceMs },
          ConditionExpression:
            expected === undefined ? "attribute_not_exists(#pk)" : "sinceMs = :since AND factor = :factor",
          ...(expected === undefined
            ? { ExpressionAttributeNames: { "#pk": PK } }
            : { ExpressionAttributeValues: { ":since": expected.sinceMs, ":factor": expected.factor } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw toStoreError(error, "capacity rate");
    }
  }
}

/**
 * One TAT's part of a booking's UpdateItem: an idle one (absent, or below `below`) is SET, a busy
 * one (from `atLeast` to `atMost`) gets an ADD — commutative, so concurrent bookings never refuse
 * each other while the lane has room.
 */
function tatClause(
  attribute: "requestTatMs" | "tokenTatMs",
  prefix: string,
  change: TatChange,
): { set?: string; add?: string; condition: string; values: Record<string, number> } {
  if (change.kind === "reset") {
    return {
      set: `${attribute} = ${prefix}To`,
      condition: `attribute_not_exists(${attribute}) OR ${attribute} < ${prefix}Below`,
      values: { [`${prefix}To`]: change.to, [`${prefix}Below`]: change.below },
    };
  }
  return {
    add: `${attribute} ${prefix}Amount`,
    condition: `${attribute} BETWEEN ${prefix}Low AND ${prefix}High`,
    values: {
      [`${prefix}Amount`]: change.amount,
      [`${prefix}Low`]: change.atLeast,
      [`${prefix}High`]: change.atMost,
    },
  };
}

function partitionOf(modelId: string): string {
  return `${PARTITION_PREFIXES.capacity}${modelId}`;
}

function parseItem<T>(schema: z.core.$ZodType<T>, item: Record<string, unknown>, modelId: string): T {
  const parsed = z.safeParse(schema, item);
  if (!parsed.success) {
    throw new CorruptStoreItemError(
      `Capacity item ${String(item[SK])} of ${modelId}: ${parsed.error.message}`,
    );
  }
  return parsed.data;
}
