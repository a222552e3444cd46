/** @20minutes/s3rver (a maintained fork of s3rver) ships no types: the part the local runtime uses. */
declare module "@20minutes/s3rver" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface S3rverOptions {
    /** Where buckets and objects are kept (one file per object). */
    directory: string;
    silent?: boolean;
    /** Buckets created before the first request. */
    configureBuckets?: { name: string }[];
    /** Accept requests whose signature does not verify. @default false */
    allowMismatchedSignatures?: boolean;
    /** Address buckets by host name. The SDK addresses them by path on an IP endpoint. @default true */
    vhostBuckets?: boolean;
  }

  class S3rver {
    constructor(options: S3rverOptions);
    /** Creates `configureBuckets`. */
    configureBuckets(): Promise<void>;
    /** The request listener, for an HTTP server of the caller's. */
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
  export = S3rver;
}

/** The credentials s3rver checks signatures against: one built-in key pair unless more are added. */
declare module "@20minutes/s3rver/lib/models/account.js" {
  interface AwsAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
  }
  export const DUMMY_ACCOUNT: AwsAccount;
}
