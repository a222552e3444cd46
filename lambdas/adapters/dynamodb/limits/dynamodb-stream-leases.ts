import { type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import * as z from "../../../core/zod";
import { CorruptStoreItemError, isConditionalCheckFailed, toStoreError } from "../../shared/store-errors";
import { PARTITION_PREFIXES, TABLE_DESIGN } from "../table-design";

/** Where the event stream counts its open streams (handlers/api/event-stream.ts). */
export interface StreamLeases {
  /**
   * Takes a lease `id` until `untilMs` if fewer than `maxOpen` leases are live at `nowMs`; false when
   * the bound is reached. A lease nobody releases (its function died) lapses at `untilMs`.
   */
  acquire(id: string, untilMs: number, nowMs: number, maxOpen: number): Promise<boolean>;
  release(id: string): Promise<void>;
}

const KEY = {
  [TABLE_DESIGN.partitionKey]: `${PARTITION_PREFIXES.streams}open`,
  [TABLE_DESIGN.sortKey]: "LEASES",
};
const LeasesItemSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    version: z.number().check(z.int(), z.gte(0)),
    leases: z.record(z.string(), z.number()),
  }),
);
type LeasesItem = z.infer<typeof LeasesItemSchema>;
/** Writers that keep meeting another between their read and their write give up (no stream, a 429). */
const MAX_CONFLICTS = 8;

/**
 * The open streams' leases in one item of the goal table: a map of lease id to its end, rewritten
 * whole under a version condition (streams open and close a few times a minute, not a second). Each
 * write drops the leases that lapsed, so a crashed stream frees its place by itself.
 */
export class DynamoDbStreamLeases implements StreamLeases {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  acquire(id: string, untilMs: number, nowMs: number, maxOpen: number): Promise<boolean> {
    return this.change(
      (live) => (Object.keys(live).length >= maxOpen ? undefined : { ...live, [id]: untilMs }),
      nowMs,
    );
  }

  async release(id: string): Promise<void> {
    await this.change((live) => {
      if (!Object.hasOwn(live, id)) return undefined;
      const { [id]: _released, ...rest } = live;
      return rest;
    }, Date.now());
  }

  /** Applies `next` to the live leases and writes them; false when `next` declines. */
  private async change(
    next: (live: Readonly<Record<string, number>>) => Record<string, number> | undefined,
    nowMs: number,
  ): Promise<boolean> {
    for (let conflicts = 0; conflicts < MAX_CONFLICTS; conflicts += 1) {
      const current = await this.read();
      const live = Object.fromEntries(
        Object.entries(current?.leases ?? {}).filter(([, until]) => until > nowMs),
      );
      const leases = next(live);
      if (leases === undefined) return false;
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...KEY, version: (current?.version ?? 0) + 1, leases },
            ConditionExpression: current === undefined ? "attribute_not_exists(#pk)" : "version = :version",
            ...(current === undefined
              ? { ExpressionAttributeNames: { "#pk": TABLE_DESIGN.partitionKey } }
              : { ExpressionAttributeValues: { ":version": current.version } }),
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw toStoreError(error, "stream lease");
      }
    }
    return false;
  }

  private async read(): Promise<LeasesItem | undefined> {
    let item: Record<string, unknown> | undefined;
    try {
      item = (
        await this.client.send(new GetCommand({ TableName: this.tableName, Key: KEY, ConsistentRead: true }))
      ).Item;
    } catch (error) {
      throw toStoreError(error, "stream lease read");
    }
    if (item === undefined) return undefined;
    const parsed = LeasesItemSchema.safeParse(item);
    if (!parsed.success) throw new CorruptStoreItemError(`The stream leases item: ${parsed.error.message}`);
    return parsed.data;
  }
}
