import { createHash } from "node:crypto";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import * as z from "../../../core/zod";
import type { PayloadStore } from "../../shared/payload-store";
import { CorruptStoreItemError, GoalStoreBackendError } from "../../shared/store-errors";
import { payloadKeyPrefix, TABLE_DESIGN } from "../table-design";
import { estimateItemBytes, estimateValueBytes } from "./item-size";

/**
 * Items of any size in a table whose items stop at 400 KB. Before a put, an item estimated larger
 * than `inlineMaxBytes` moves its largest values to the payload store and lists them in
 * `offloaded` (path, content-addressed key, sha256, size, encoding); after a read, the values are
 * put back before any adapter parses the item. The adapters never see the difference, which is
 * why this is middleware on the document client and not code in each of them.
 *
 * A small item never touches the payload store. A retried or racing put of the same value writes
 * the same key with the same bytes; the conditional put in DynamoDB still decides which item wins,
 * so a checkpoint never points at a second, different body. A body whose item lost the race stays
 * unreferenced until the bucket's lifecycle rule removes it.
 */

const PK = TABLE_DESIGN.partitionKey;
const SK = TABLE_DESIGN.sortKey;
const OFFLOADED = TABLE_DESIGN.offloadAttribute;

/** Attributes that keys, indexes, TTL and conditions read: always inline. */
const INLINE_ATTRIBUTES: ReadonlySet<string> = new Set([
  PK,
  SK,
  TABLE_DESIGN.statusIndex.partitionKey,
  TABLE_DESIGN.statusIndex.sortKey,
  TABLE_DESIGN.ttlAttribute,
  OFFLOADED,
  "version",
]);

/** Values below this stay inline: moving one frees less than its pointer and a request cost. */
const MIN_OFFLOAD_BYTES = 1024;
/** DynamoDB's item limit, less a margin for the estimate's rounding. */
const DYNAMODB_ITEM_MAX_BYTES = 400 * 1024 - 4096;
/** How many stored keys one client remembers, so a body it just read or wrote is not put again. */
const KNOWN_KEYS_MAX = 10_000;

const PathSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.array(z.union([z.string(), z.number().check(z.int(), z.gte(0))])).check(z.minLength(1)),
);
type Path = z.infer<typeof PathSchema>;

export const OffloadedValueSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    path: PathSchema,
    key: z.string().check(z.minLength(1)),
    sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    size: z.number().check(z.int(), z.gte(0)),
    encoding: z.enum(["utf8", "json", "binary"]),
  }),
);
export type OffloadedValue = z.infer<typeof OffloadedValueSchema>;
const OffloadedListSchema = /* @__PURE__ */ z.lazySchema(() => z.array(OffloadedValueSchema));

const CONTENT_TYPES: Readonly<Record<OffloadedValue["encoding"], string>> = {
  utf8: "text/plain; charset=utf-8",
  json: "application/json",
  binary: "application/octet-stream",
};

export interface LargeItemOffloadOptions {
  /** The store, or how to make it on first need (its SDK client stays unloaded for small goals). */
  readonly payloads: PayloadStore | (() => Promise<PayloadStore>);
  /** Items estimated larger than this (bytes, as DynamoDB counts them) keep large values outside. */
  readonly inlineMaxBytes: number;
  /**
   * With the goals' retention, bodies expire by the bucket's lifecycle: a body is put again when an
   * item that points at it is written and this client has not put it itself within this long, so
   * it always outlives the item (a body this client only read may be as old as its first put).
   * @default - bodies never expire: a body this client wrote or read is not put again
   */
  readonly refreshAfterMs?: number;
  readonly now?: () => Date;
}

type Item = Record<string, unknown>;

function isRecord(value: unknown): value is Item {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

interface Candidate {
  readonly path: Path;
  readonly value: unknown;
  readonly bytes: number;
}

export class LargeItemOffload {
  /** Keys this client knows are in the store, and when it put them (0: read, age unknown). */
  private readonly known = new Map<string, number>();
  private store: Promise<PayloadStore> | undefined;

  constructor(private readonly options: LargeItemOffloadOptions) {}

  /** `item` as it should be written: itself when small enough, else with its large values moved out. */
  async offload(item: Item): Promise<Item> {
    const size = estimateItemBytes(item);
    const pk = item[PK];
    // Only the document client's plain items are ours (a raw AttributeValue map has `{S: …}` keys).
    if (size <= this.options.inlineMaxBytes || typeof pk !== "string") return item;
    const chosen = this.choose(item, size);
    const moved = await Promise.all(chosen.map((candidate) => this.put(pk, candidate)));
    let written: Item = item;
    for (const { path } of chosen) written = removeAt(written, path);
    const earlier = Array.isArray(item[OFFLOADED]) ? (item[OFFLOADED] as unknown[]) : [];
    return { ...written, [OFFLOADED]: [...earlier, ...moved] };
  }

  /** `item` with every offloaded value back in its place; itself when nothing was moved. */
  async hydrate(item: Item): Promise<Item> {
    const listed = item[OFFLOADED];
    if (!Array.isArray(listed)) return item;
    const parsed = OffloadedListSchema.safeParse(listed);
    if (!parsed.success) {
      throw new CorruptStoreItemError(
        `Item ${String(item[PK])} ${String(item[SK])} has a malformed '${OFFLOADED}' list: ${z.prettifyError(parsed.error)}`,
      );
    }
    const values = await Promise.all(parsed.data.map((entry) => this.get(entry)));
    const { [OFFLOADED]: _listed, ...hydrated } = item;
    parsed.data.forEach((entry, index) => {
      placeAt(hydrated, entry.path, values[index]);
    });
    return hydrated;
  }

  /**
   * The values to move, largest first, until the item fits: single strings and binaries anywhere in
   * it (a file's content, a tool input's text), else whole top-level attributes (a long plan of
   * many small strings). Throws when even that cannot bring it under DynamoDB's limit.
   */
  private choose(item: Item, size: number): Candidate[] {
    const limit = this.options.inlineMaxBytes;
    const leaves = greedy(collectLeaves(item), size, limit);
    if (leaves.remaining <= limit) return leaves.chosen;
    const attributes = Object.entries(item)
      .filter(([name, value]) => !INLINE_ATTRIBUTES.has(name) && !containsBinaryBelowTop(value))
      .map(([name, value]) => ({ path: [name], value, bytes: estimateValueBytes(value) }));
    const whole = greedy(attributes, size, limit);
    if (whole.remaining > DYNAMODB_ITEM_MAX_BYTES) {
      throw new GoalStoreBackendError(
        `Item ${String(item[PK])} ${String(item[SK])} is ${size} bytes and still ${whole.remaining} after moving its large values to the payload store; DynamoDB keeps at most ${DYNAMODB_ITEM_MAX_BYTES}`,
      );
    }
    return whole.chosen;
  }

  private payloads(): Promise<PayloadStore> {
    const { payloads } = this.options;
    if (typeof payloads !== "function") return Promise.resolve(payloads);
    this.store ??= payloads().catch((error: unknown) => {
      this.store = undefined;
      throw error;
    });
    return this.store;
  }

  private async put(pk: string, { path, value }: Candidate): Promise<OffloadedValue> {
    const { body, encoding } = encode(value);
    const sha256 = createHash("sha256").update(body).digest("hex");
    // Grouped by the item's partition (`GOAL/<goalId>/…`), so one goal's bodies share a prefix.
    const key = `${payloadKeyPrefix(pk)}/${sha256}`;
    if (!this.isFresh(key)) {
      await (await this.payloads()).put(key, body, CONTENT_TYPES[encoding]);
      this.remember(key, this.nowMs());
    }
    return { path, key, sha256, size: body.byteLength, encoding };
  }

  private async get(entry: OffloadedValue): Promise<unknown> {
    const body = await (await this.payloads()).get(entry.key);
    const sha256 = createHash("sha256").update(body).digest("hex");
    if (sha256 !== entry.sha256) {
      throw new CorruptStoreItemError(
        `Payload ${entry.key} does not match its sha256 (${sha256} instead of ${entry.sha256})`,
      );
    }
    if (!this.known.has(entry.key)) this.remember(entry.key, 0);
    return decode(body, entry.encoding);
  }

  /** Whether a put of `key` can be skipped: it is there, and will be for as long as the item. */
  private isFresh(key: string): boolean {
    const putAt = this.known.get(key);
    if (putAt === undefined) return false;
    const { refreshAfterMs } = this.options;
    return refreshAfterMs === undefined || (putAt > 0 && this.nowMs() - putAt < refreshAfterMs);
  }

  private nowMs(): number {
    return (this.options.now?.() ?? new Date()).getTime();
  }

  private remember(key: string, putAt: number): void {
    if (this.known.size >= KNOWN_KEYS_MAX) this.known.clear();
    this.known.set(key, putAt);
  }
}

/**
 * Installs the offload on `client` (and so on the DynamoDB client it wraps: the document client
 * shares its middleware stack), at the initialize step, where inputs are still plain objects and
 * outputs are plain again. Puts and batch puts are offloaded; items read by get, query, scan, batch
 * get and updates that return attributes are hydrated.
 */
export function withLargeItemOffload(
  client: DynamoDBDocumentClient,
  options: LargeItemOffloadOptions,
): DynamoDBDocumentClient {
  const offload = new LargeItemOffload(options);
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = isRecord(args.input) ? await offloadInput(offload, args.input) : args.input;
      const result = await next({ ...args, input });
      if (isRecord(result.output)) await hydrateOutput(offload, result.output);
      return result;
    },
    { step: "initialize", name: "goalLoopsLargeItemOffload", override: true },
  );
  return client;
}

async function offloadInput(offload: LargeItemOffload, input: Item): Promise<Item> {
  if (isRecord(input.Item)) return { ...input, Item: await offload.offload(input.Item) };
  if (!isRecord(input.RequestItems)) return input;
  const tables = await Promise.all(
    Object.entries(input.RequestItems).map(async ([table, requests]) => {
      if (!Array.isArray(requests)) return [table, requests] as const;
      const offloaded = await Promise.all(
        requests.map(async (request: unknown) => {
          if (!isRecord(request) || !isRecord(request.PutRequest) || !isRecord(request.PutRequest.Item)) {
            return request;
          }
          return {
            ...request,
            PutRequest: { ...request.PutRequest, Item: await offload.offload(request.PutRequest.Item) },
          };
        }),
      );
      return [table, offloaded] as const;
    }),
  );
  return { ...input, RequestItems: Object.fromEntries(tables) };
}

async function hydrateOutput(offload: LargeItemOffload, output: Item): Promise<void> {
  const hydrateList = (items: unknown[]) =>
    Promise.all(items.map((item) => (isRecord(item) ? offload.hydrate(item) : item)));
  if (isRecord(output.Item)) output.Item = await offload.hydrate(output.Item);
  if (isRecord(output.Attributes)) output.Attributes = await offload.hydrate(output.Attributes);
  if (Array.isArray(output.Items)) output.Items = await hydrateList(output.Items);
  if (isRecord(output.Responses)) {
    for (const [table, items] of Object.entries(output.Responses)) {
      if (Array.isArray(items)) output.Responses[table] = await hydrateList(items);
    }
  }
}

/** Largest first, until the estimate is at most `limit`; each move leaves a pointer of ~200 bytes. */
function greedy(candidates: Candidate[], size: number, limit: number) {
  const chosen: Candidate[] = [];
  let remaining = size;
  for (const candidate of [...candidates].sort((a, b) => b.bytes - a.bytes)) {
    if (remaining <= limit) break;
    if (candidate.bytes < MIN_OFFLOAD_BYTES) break;
    chosen.push(candidate);
    remaining -= candidate.bytes - pointerBytes(candidate.path);
  }
  return { chosen, remaining };
}

function pointerBytes(path: Path): number {
  return 200 + path.reduce<number>((sum, segment) => sum + String(segment).length + 1, 0);
}

/** Every string and binary value of at least MIN_OFFLOAD_BYTES, with its path. */
function collectLeaves(item: Item): Candidate[] {
  const leaves: Candidate[] = [];
  const visit = (value: unknown, path: Path) => {
    if (typeof value === "string" || value instanceof Uint8Array) {
      const bytes = estimateValueBytes(value);
      if (bytes >= MIN_OFFLOAD_BYTES) leaves.push({ path, value, bytes });
    } else if (Array.isArray(value)) {
      for (const [index, entry] of value.entries()) visit(entry, [...path, index]);
    } else if (isRecord(value)) {
      for (const [name, entry] of Object.entries(value)) visit(entry, [...path, name]);
    }
  };
  for (const [name, value] of Object.entries(item)) {
    if (!INLINE_ATTRIBUTES.has(name)) visit(value, [name]);
  }
  return leaves;
}

/** JSON cannot carry binary: a container holding some is moved leaf by leaf, never whole. */
function containsBinaryBelowTop(value: unknown): boolean {
  if (value instanceof Uint8Array) return false;
  const inside = (entry: unknown): boolean =>
    entry instanceof Uint8Array ||
    (Array.isArray(entry) && entry.some(inside)) ||
    (isRecord(entry) && Object.values(entry).some(inside));
  return inside(value);
}

function encode(value: unknown): { body: Uint8Array; encoding: OffloadedValue["encoding"] } {
  if (typeof value === "string") return { body: Buffer.from(value, "utf8"), encoding: "utf8" };
  if (value instanceof Uint8Array) return { body: value, encoding: "binary" };
  return { body: Buffer.from(JSON.stringify(value), "utf8"), encoding: "json" };
}

function decode(body: Uint8Array, encoding: OffloadedValue["encoding"]): unknown {
  if (encoding === "binary") return body;
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  return encoding === "utf8" ? text : JSON.parse(text);
}

/** A copy of `root` without the value at `path`; only the containers on the path are copied. */
function removeAt(root: Item, path: Path): Item {
  const [head, ...rest] = path;
  const key = String(head);
  const copy = { ...root };
  if (rest.length === 0) {
    delete copy[key];
    return copy;
  }
  copy[key] = removeIn(root[key], rest);
  return copy;
}

function removeIn(container: unknown, path: Path): unknown {
  const [head, ...rest] = path;
  if (Array.isArray(container) && typeof head === "number") {
    const copy = [...container];
    // A list keeps its length: the slot holds null until a read puts the value back.
    copy[head] = rest.length === 0 ? null : removeIn(container[head], rest);
    return copy;
  }
  if (isRecord(container)) return removeAt(container, path);
  return container;
}

/**
 * Puts `value` back at `path` where the item has nothing there. A value written inline since (an
 * update that set the attribute again) is newer than the offloaded one and stays. A projection that
 * left out the value's container leaves nothing to put it in, so nothing is put.
 */
function placeAt(root: Item, path: Path, value: unknown): void {
  let container: unknown = root;
  for (const segment of path.slice(0, -1)) {
    if (Array.isArray(container) && typeof segment === "number") container = container[segment];
    else if (isRecord(container)) container = container[String(segment)];
    else return;
  }
  const last = path[path.length - 1];
  if (Array.isArray(container) && typeof last === "number") {
    if (container[last] === null || container[last] === undefined) container[last] = value;
  } else if (isRecord(container) && container[String(last)] === undefined) {
    container[String(last)] = value;
  }
}
