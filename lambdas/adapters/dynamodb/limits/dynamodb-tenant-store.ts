import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { TenantStore } from "../../../core/ports/tenant-store";
import { type TenantLimitsOverride, TenantLimitsOverrideSchema } from "../../../core/tenants/tenant-limits";
import * as z from "../../../core/zod";
import { CorruptStoreItemError, isConditionalCheckFailed, toStoreError } from "../../shared/store-errors";
import { PARTITION_PREFIXES, TABLE_DESIGN } from "../table-design";

const PK = TABLE_DESIGN.partitionKey;
const SK = TABLE_DESIGN.sortKey;
const TTL = TABLE_DESIGN.ttlAttribute;
const SPEND_PREFIX = "SPEND#";
/** A day's spend item outlives its day by this long: `GET /tenants/me` on the next day still sees it. */
const SPEND_KEPT_SECONDS = 3 * 86_400;

const LimitsItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ override: TenantLimitsOverrideSchema }),
);
const SlotsItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ holders: z.optional(z.set(z.string())) }),
);
const StartsItemSchema = /* @__PURE__ */ z.lazySchema(() => z.object({ tatMs: z.number() }));
const SpendItemSchema = /* @__PURE__ */ z.lazySchema(() => z.object({ usd: z._default(z.number(), 0) }));

function keyOf(tenantId: string, sortKey: string) {
  return { [PK]: `${PARTITION_PREFIXES.tenant}${tenantId}`, [SK]: sortKey };
}

/**
 * A tenant's own items in the goal table, one partition per tenant (`TENANT#{tenantId}`): the
 * limits an operator set (`LIMITS`), the goals holding its slots as a string set (`SLOTS`: a slot is
 * taken by one conditional ADD on the set's size, freed by a DELETE, both idempotent), the start
 * pace's TAT (`STARTS`, written under a condition on the one read), and one spend counter per UTC
 * day (`SPEND#{day}`, an atomic ADD, expired by TTL). Only single-item calls by key: a function
 * granted `TENANT#*` items reads and writes nothing else.
 */
export class DynamoDbTenantStore implements TenantStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async readOverride(tenantId: string): Promise<TenantLimitsOverride | undefined> {
    const item = await this.get(tenantId, "LIMITS", "tenant limits read");
    return item === undefined ? undefined : parseItem(LimitsItemSchema, item, tenantId).override;
  }

  async writeOverride(tenantId: string, override: TenantLimitsOverride, by: string, at: Date): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keyOf(tenantId, "LIMITS"), override, by, at: at.toISOString() },
        }),
      );
    } catch (error) {
      throw toStoreError(error, "tenant limits write");
    }
  }

  async slotHolders(tenantId: string): Promise<readonly string[]> {
    const item = await this.get(tenantId, "SLOTS", "tenant slots read");
    return item === undefined ? [] : [...(parseItem(SlotsItemSchema, item, tenantId).holders ?? [])];
  }

  async takeSlot(tenantId: string, goalId: string, limit: number): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(tenantId, "SLOTS"),
          UpdateExpression: "ADD holders :goal",
          ConditionExpression:
            "attribute_not_exists(holders) OR size(holders) < :limit OR contains(holders, :id)",
          ExpressionAttributeValues: { ":goal": new Set([goalId]), ":limit": limit, ":id": goalId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw toStoreError(error, "tenant slot take");
    }
  }

  async releaseSlots(tenantId: string, goalIds: readonly string[]): Promise<void> {
    if (goalIds.length === 0) return;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(tenantId, "SLOTS"),
          UpdateExpression: "DELETE holders :goals",
          ExpressionAttributeValues: { ":goals": new Set(goalIds) },
        }),
      );
    } catch (error) {
      throw toStoreError(error, "tenant slot release");
    }
  }

  async readStartTat(tenantId: string): Promise<number | undefined> {
    const item = await this.get(tenantId, "STARTS", "tenant start pace read");
    return item === undefined ? undefined : parseItem(StartsItemSchema, item, tenantId).tatMs;
  }

  async writeStartTat(tenantId: string, expected: number | undefined, next: number): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keyOf(tenantId, "STARTS"), tatMs: next },
          ConditionExpression: expected === undefined ? "attribute_not_exists(tatMs)" : "tatMs = :expected",
          ...(expected === undefined ? {} : { ExpressionAttributeValues: { ":expected": expected } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw toStoreError(error, "tenant start pace write");
    }
  }

  async addSpend(tenantId: string, day: string, usd: number): Promise<void> {
    if (!(usd > 0)) return;
    const dayEnd = Date.parse(`${day}T00:00:00.000Z`) / 1000 + 86_400;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(tenantId, `${SPEND_PREFIX}${day}`),
          UpdateExpression: "ADD usd :usd SET #ttl = :ttl",
          ExpressionAttributeNames: { "#ttl": TTL },
          ExpressionAttributeValues: { ":usd": usd, ":ttl": Math.ceil(dayEnd + SPEND_KEPT_SECONDS) },
        }),
      );
    } catch (error) {
      throw toStoreError(error, "tenant spend add");
    }
  }

  async spend(tenantId: string, day: string): Promise<number> {
    const item = await this.get(tenantId, `${SPEND_PREFIX}${day}`, "tenant spend read");
    return item === undefined ? 0 : parseItem(SpendItemSchema, item, tenantId).usd;
  }

  private async get(tenantId: string, sortKey: string, operation: string) {
    try {
      const output = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: keyOf(tenantId, sortKey), ConsistentRead: true }),
      );
      return output.Item;
    } catch (error) {
      throw toStoreError(error, operation);
    }
  }
}

function parseItem<T>(schema: z.core.$ZodType<T>, item: Record<string, unknown>, tenantId: string): T {
  const parsed = z.safeParse(schema, item);
  if (!parsed.success) {
    throw new CorruptStoreItemError(
      `Tenant item ${String(item[SK])} of ${tenantId}: ${parsed.error.message}`,
    );
  }
  return parsed.data;
}
