import { S3Client } from "@aws-sdk/client-s3";
import { S3PayloadStore } from "../../lambdas/adapters/s3/s3-payload-store";
import type { PayloadStore } from "../../lambdas/adapters/shared/payload-store";
import { startS3Endpoint } from "../../lib/local/storage/s3-endpoint";

export const PAYLOAD_BUCKET = "goal-loops-payloads-test";

/** A payload store that counts what reached S3, so a test can tell a small item never did. */
export class CountingPayloadStore implements PayloadStore {
  puts = 0;
  gets = 0;
  bytesPut = 0;

  constructor(private readonly inner: PayloadStore) {}

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    this.puts += 1;
    this.bytesPut += body.byteLength;
    await this.inner.put(key, body, contentType);
  }

  async get(key: string): Promise<Uint8Array> {
    this.gets += 1;
    return this.inner.get(key);
  }
}

export interface LocalS3 {
  readonly endpoint: string;
  readonly client: S3Client;
  /** A store on PAYLOAD_BUCKET through the real S3 adapter. */
  readonly payloads: PayloadStore;
  stop(): Promise<void>;
}

/** s3rver on 127.0.0.1 in a temporary folder, with PAYLOAD_BUCKET, as the local stack runs it. */
export async function startLocalS3(): Promise<LocalS3> {
  const endpoint = await startS3Endpoint({ buckets: [PAYLOAD_BUCKET] });
  const client = new S3Client({
    endpoint: endpoint.url,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    forcePathStyle: true,
  });
  return {
    endpoint: endpoint.url,
    client,
    payloads: new S3PayloadStore(client, PAYLOAD_BUCKET),
    async stop() {
      client.destroy();
      await endpoint.close();
    },
  };
}
