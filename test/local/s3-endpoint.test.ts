import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { afterEach, describe, expect, it } from "vitest";
import { S3PayloadStore } from "../../lambdas/adapters/s3/s3-payload-store";
import { startS3Endpoint } from "../../lib/local/storage/s3-endpoint";
import { LOCAL_CREDENTIALS } from "./support";

const BUCKET = "goaltablepayloadsbucket1323cdba";

function clientFor(url: string, credentials = LOCAL_CREDENTIALS): S3Client {
  return new S3Client({
    endpoint: url,
    region: "us-east-1",
    credentials,
    forcePathStyle: true,
    maxAttempts: 1,
  });
}

describe("the local S3 (s3rver), driven by the payload store through the real SDK client", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("keeps objects in its folder across a restart", async () => {
    // Prepare
    const directory = mkdtempSync(path.join(tmpdir(), "goal-loops-s3-test-"));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const first = await startS3Endpoint({ buckets: [BUCKET], directory });
    const body = Buffer.from("a payload that outlives the stack", "utf8");
    const firstClient = clientFor(first.url);
    await new S3PayloadStore(firstClient, BUCKET).put("GOAL/g-1/abc", body, "text/plain");
    firstClient.destroy();
    await first.close();

    // Act
    const second = await startS3Endpoint({ buckets: [BUCKET], directory });
    cleanups.push(() => second.close());
    const secondClient = clientFor(second.url);
    cleanups.push(() => secondClient.destroy());
    const read = await new S3PayloadStore(secondClient, BUCKET).get("GOAL/g-1/abc");

    // Assess
    expect(Buffer.from(read).toString("utf8")).toBe("a payload that outlives the stack");
  });

  it("names a missing body, checks signatures, and removes a temporary folder on close", async () => {
    // Prepare
    const endpoint = await startS3Endpoint({ buckets: [BUCKET] });
    const client = clientFor(endpoint.url);
    const stranger = clientFor(endpoint.url, { accessKeyId: "someone", secretAccessKey: "else" });

    // Act
    const missing = await new S3PayloadStore(client, BUCKET)
      .get("GOAL/g-2/none")
      .catch((error: unknown) => error);
    const refused = await new S3PayloadStore(stranger, BUCKET)
      .put("GOAL/g-2/x", Buffer.from("x"), "text/plain")
      .catch((error: unknown) => error);
    client.destroy();
    stranger.destroy();
    await endpoint.close();

    // Assess
    expect(missing).toMatchObject({
      name: "PayloadMissingError",
      message: `Payload GOAL/g-2/none is not in bucket ${BUCKET}: deleted, or expired by the bucket's lifecycle rule`,
    });
    expect(refused).toMatchObject({
      name: "GoalStoreBackendError",
      message: "S3 PutObject of payload GOAL/g-2/x failed: InvalidAccessKeyId",
    });
    expect(existsSync(endpoint.directory)).toBe(false);
  });
});
