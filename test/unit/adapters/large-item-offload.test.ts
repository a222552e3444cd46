import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { estimateItemBytes } from "../../../lambdas/adapters/dynamodb/item-size";
import { LargeItemOffload } from "../../../lambdas/adapters/dynamodb/large-item-offload";
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
