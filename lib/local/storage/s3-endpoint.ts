import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import S3rver from "@20minutes/s3rver";
import { listen } from "../shared/listen";

/** The credentials every local function signs with (lambda-env.ts); s3rver verifies signatures. */
const LOCAL_ACCESS_KEY = { accessKeyId: "local", secretAccessKey: "local" };

export interface S3Endpoint {
  readonly url: string;
  /** Where the objects are kept: a folder of the state dir, or a temporary one removed on close. */
  readonly directory: string;
  close(): Promise<void>;
}

export interface S3EndpointOptions {
  /** Buckets to create (the template's, by their local names). */
  readonly buckets: readonly string[];
  /** Keep objects here across restarts; absent: a temporary folder, removed on close. */
  readonly directory?: string;
  readonly port?: number;
}

/**
 * Amazon S3 on 127.0.0.1 through s3rver (the maintained `@20minutes/s3rver` fork): the real S3
 * REST protocol with signature checks, objects kept as files. The functions reach it through
 * `AWS_ENDPOINT_URL_S3`; on an IP endpoint the SDK addresses buckets by path.
 */
export async function startS3Endpoint(options: S3EndpointOptions): Promise<S3Endpoint> {
  registerLocalCredentials();
  const temporary = options.directory === undefined;
  const directory = options.directory ?? (await mkdtemp(path.join(os.tmpdir(), "goal-loops-s3-")));
  const s3rver = new S3rver({
    directory,
    silent: true,
    vhostBuckets: false,
    configureBuckets: options.buckets.map((name) => ({ name })),
  });
  await s3rver.configureBuckets();
  const server = await listen(http.createServer(s3rver.callback()), options.port);
  let closed: Promise<void> | undefined;
  return {
    url: server.url,
    directory,
    close() {
      closed ??= (async () => {
        await server.close();
        if (temporary) await rm(directory, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}

let registered = false;

/** s3rver knows one key pair (S3RVER) unless told of more; the local functions sign as `local`. */
function registerLocalCredentials(): void {
  if (registered) return;
  // A deep import: s3rver exports no API for its accounts. CommonJS, so loaded through require.
  const require = createRequire(import.meta.url);
  const account: typeof import("@20minutes/s3rver/lib/models/account.js") = require("@20minutes/s3rver/lib/models/account.js");
  account.DUMMY_ACCOUNT.createKeyPair(LOCAL_ACCESS_KEY.accessKeyId, LOCAL_ACCESS_KEY.secretAccessKey);
  registered = true;
}
