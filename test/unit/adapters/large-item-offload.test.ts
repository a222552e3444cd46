import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { estimateItemBytes } from "../../../lambdas/adapters/dynamodb/encoding/item-size";
import { LargeItemOffload } from "../../../lambdas/adapters/dynamodb/encoding/large-item-offload";
import { PayloadMissingError, type PayloadStore } from "../../../lambdas/adapters/shared/payload-store";

/** The payload store's contract in memory: the S3 one runs in the goal store's contract suite. */
class MemoryPayloads implements PayloadStore {
  readonly bodies = new Map<string, Uint8Array>();
  async put(key: string, body: Uint8Array): Promise<void> {
    this.bodies.set(key, Uint8Array.from(body));
  }
  async get(key: string): Promise<Uint8Array> {
    const body = this.bodies.get(key);
    if (!body) throw new PayloadMissingError(`no ${key}`);
    return body;
  }
}

const LIMIT = 64 * 1024;

describe("LargeItemOffload", () => {
  it("moves a large binary attribute (a compressed goal state) out and puts the same bytes back", async () => {
    // Prepare
    const payloads = new MemoryPayloads();
    const offload = new LargeItemOffload({ payloads, inlineMaxBytes: LIMIT });
    const state = randomBytes(200 * 1024);
    const item = { pk: "GOAL#g-1", sk: "GOAL", version: 7, state };

    // Act
    const written = await offload.offload(item);
    const read = await new LargeItemOffload({ payloads, inlineMaxBytes: LIMIT }).hydrate(written);

    // Assess
    expect(estimateItemBytes(written)).toBeLessThan(LIMIT);
    expect(written).toMatchObject({ pk: "GOAL#g-1", sk: "GOAL", version: 7 });
    expect(written.state).toBeUndefined();
    expect(written.offloaded).toEqual([expect.objectContaining({ path: ["state"], encoding: "binary" })]);
    expect(Buffer.from(read.state as Uint8Array).equals(state)).toBe(true);
    expect(read.offloaded).toBeUndefined();
  });

  it("moves a whole attribute of many small strings (a long plan) when no single string is large", async () => {
    // Prepare
    const payloads = new MemoryPayloads();
    const offload = new LargeItemOffload({ payloads, inlineMaxBytes: LIMIT });
    const steps = Array.from({ length: 2000 }, (_, index) => ({
      id: `step-${index}`,
      action: `do thing ${index} `.repeat(4),
    }));
    const item = { pk: "GOAL#g-2", sk: "STEP#00000001", plan: { steps } };

    // Act
    const written = await offload.offload(item);
    const read = await offload.hydrate(written);

    // Assess
    expect(estimateItemBytes(written)).toBeLessThan(LIMIT);
    expect(written.offloaded).toEqual([expect.objectContaining({ path: ["plan"], encoding: "json" })]);
    expect(read).toEqual(item);
  });

  it("leaves a small item, and a value written inline since, as they are", async () => {
    // Prepare
    const payloads = new MemoryPayloads();
    const offload = new LargeItemOffload({ payloads, inlineMaxBytes: LIMIT });
    const small = { pk: "GOAL#g-3", sk: "WS#a.md", content: "short" };
    const large = { pk: "GOAL#g-3", sk: "WS#b.md", content: "x".repeat(100 * 1024), note: "old" };
    const written = await offload.offload(large);

    // Act: an update set `content` again inline after the offload
    const updated = await offload.hydrate({ ...written, content: "newer" });

    // Assess
    expect(await offload.offload(small)).toBe(small);
    expect(payloads.bodies.size).toBe(1);
    expect(updated.content).toBe("newer");
  });

  it("refuses a body whose hash does not match its pointer", async () => {
    // Prepare
    const payloads = new MemoryPayloads();
    const offload = new LargeItemOffload({ payloads, inlineMaxBytes: LIMIT });
    const written = await offload.offload({ pk: "GOAL#g-4", sk: "CKPT", text: "y".repeat(100 * 1024) });
    const [key] = [...payloads.bodies.keys()];
    payloads.bodies.set(key ?? "", Buffer.from("tampered"));

    // Act
    const read = new LargeItemOffload({ payloads, inlineMaxBytes: LIMIT }).hydrate(written);

    // Assess
    await expect(read).rejects.toMatchObject({
      name: "CorruptStoreItemError",
      message: expect.stringContaining("does not match its sha256"),
    });
  });
});

describe("LargeItemOffload with the goals' retention", () => {
  /** Counts the puts a store gets. */
  class CountingPayloads extends MemoryPayloads {
    puts = 0;
    override async put(key: string, body: Uint8Array): Promise<void> {
      this.puts += 1;
      await super.put(key, body);
    }
  }
  const DAY = 24 * 60 * 60 * 1000;

  it("puts a body again when an item pointing at it is written a day after this client put it, or when it only read it", async () => {
    // Prepare: a client that put a body, and one that only read the item
    const payloads = new CountingPayloads();
    let now = Date.parse("2026-12-07T10:00:00Z");
    const options = { payloads, inlineMaxBytes: LIMIT, refreshAfterMs: DAY, now: () => new Date(now) };
    const writer = new LargeItemOffload(options);
    const reader = new LargeItemOffload(options);
    const item = { pk: "GOAL#g-3", sk: "GOAL", state: randomBytes(100 * 1024) };
    await reader.hydrate(await writer.offload(item));

    // Act
    await writer.offload(item);
    const withinADay = payloads.puts;
    now += DAY;
    await writer.offload(item);
    const afterADay = payloads.puts;
    await reader.offload(item);

    // Assess: the same body is put again only once it may be older than the refresh, or of unknown age
    expect(withinADay).toBe(1);
    expect(afterADay).toBe(2);
    expect(payloads.puts).toBe(3);
  });

  it("never puts a known body again without a retention (bodies never expire)", async () => {
    // Prepare
    const payloads = new CountingPayloads();
    const reader = new LargeItemOffload({ payloads, inlineMaxBytes: LIMIT });
    const item = { pk: "GOAL#g-4", sk: "GOAL", state: randomBytes(100 * 1024) };
    const written = await new LargeItemOffload({ payloads, inlineMaxBytes: LIMIT }).offload(item);
    await reader.hydrate(written);

    // Act
    await reader.offload(item);

    // Assess
    expect(payloads.puts).toBe(1);
  });
});
