import type http from "node:http";
import { type RecordingProxy, startRecordingProxy } from "./recording-proxy";

/** One request that reached S3 (the payload bucket), attributed to the goal whose prefix it named. */
export interface PayloadRequest {
  /** `PUT`, `GET`, `HEAD`, `DELETE` … */
  readonly method: string;
  readonly bucket: string;
  /** The object key (`GOAL/<goalId>/<sha256>`, `APPROVAL/<approvalId>/<sha256>`), empty for a bucket request. */
  readonly key: string;
  /** The goal of a key `GOAL/<goalId>/<sha256>`. */
  readonly goalId: string | undefined;
  /** The object's bytes of a PUT (the decoded length of an aws-chunked body), 0 for any other request. */
  readonly bytes: number;
  readonly at: number;
}

export interface S3Proxy extends RecordingProxy {
  readonly requests: PayloadRequest[];
}

/** Bucket, key and goal of a path-style request (`/<bucket>/GOAL/<goalId>/<sha256>`). */
function objectOf(url: string): { bucket: string; key: string; goalId: string | undefined } {
  const pathname = new URL(url, "http://proxy").pathname;
  const [bucket = "", ...rest] = pathname.replace(/^\//, "").split("/");
  const key = rest.map((part) => decodeURIComponent(part)).join("/");
  const goal = /^GOAL\/([^/]+)\/[^/]+$/.exec(key);
  return { bucket: decodeURIComponent(bucket), key, goalId: goal?.[1] };
}

/** The object's size: an aws-chunked body carries chunk headers, its decoded length is a header. */
function objectBytes(headers: http.IncomingHttpHeaders, body: Buffer): number {
  const decoded = Number(headers["x-amz-decoded-content-length"]);
  return Number.isFinite(decoded) && decoded >= 0 ? decoded : body.length;
}

/**
 * An HTTP proxy in front of the local S3 (s3rver) that records every request (the functions reach
 * it through AWS_ENDPOINT_URL_S3): which goals touch the payload bucket, and how many bytes they
 * put there, measured on the wire. Requests are forwarded unchanged, Host header included: the SDK
 * signed them for this proxy's host, and s3rver checks the signature.
 */
export async function startS3Proxy(): Promise<S3Proxy> {
  const requests: PayloadRequest[] = [];
  const proxy = await startRecordingProxy({
    rewriteHost: false,
    record: (req, body) => {
      const method = req.method ?? "GET";
      requests.push({
        method,
        ...objectOf(req.url ?? "/"),
        bytes: method === "PUT" ? objectBytes(req.headers, body) : 0,
        at: performance.now(),
      });
      return undefined;
    },
  });
  return Object.assign(proxy, { requests });
}
