import { createHmac, timingSafeEqual } from "node:crypto";
import { GoalLoopsError } from "../../goal/errors";

/** Slack refuses requests whose timestamp is more than five minutes away from now; so do we. */
export const SLACK_TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

/** The signature scheme version Slack uses today: `v0=` + hex HMAC-SHA256. */
const VERSION = "v0";

export const SLACK_SIGNATURE_FAILURES = [
  "missing headers",
  "stale timestamp",
  "bad signature",
  "replayed",
] as const;
export type SlackSignatureFailure = (typeof SLACK_SIGNATURE_FAILURES)[number];

/** A request that does not prove it comes from Slack, now: answered 401, and nothing changes. */
export class SlackSignatureError extends GoalLoopsError {
  override readonly name = "SlackSignatureError";
  readonly reason: SlackSignatureFailure;

  constructor(reason: SlackSignatureFailure) {
    super(`Slack request refused: ${reason}`);
    this.reason = reason;
  }
}

/**
 * The signing secret before the last rotation (Secrets Manager's `AWSPREVIOUS`), accepted until
 * `acceptedUntil`: while a rotation is half done (Slack signs with one secret, the stack holds the
 * other), clicks still verify; after the window only the current secret does.
 */
export interface PreviousSigningSecret {
  readonly secret: string;
  readonly acceptedUntil: Date;
}

export interface SlackRequestToVerify {
  readonly signingSecret: string;
  /** @default - none: only the current secret verifies */
  readonly previousSigningSecret?: PreviousSigningSecret;
  /** `X-Slack-Request-Timestamp`: epoch seconds, as text. */
  readonly timestamp: string | undefined;
  /** `X-Slack-Signature`: `v0=<hex>`. */
  readonly signature: string | undefined;
  /** The body exactly as received: a re-encoded body would not match. */
  readonly rawBody: string;
  readonly now: Date;
}

/** The signature Slack sends for a body: `v0=` + HMAC-SHA256(`v0:{timestamp}:{raw body}`) in hex. */
export function slackSignature(signingSecret: string, timestamp: string, rawBody: string): string {
  const digest = createHmac("sha256", signingSecret)
    .update(`${VERSION}:${timestamp}:${rawBody}`)
    .digest("hex");
  return `${VERSION}=${digest}`;
}

/**
 * Checks a request as Slack documents it: both headers present, a timestamp within five minutes of
 * now either way (an old one is a replay, a future one a forged clock), and the signature compared
 * in constant time, with the current secret, then with the previous one inside its rotation window. Throws SlackSignatureError naming the first failure. Replays inside the window
 * are the ReplayGuard's job: this function keeps no state.
 */
export function verifySlackRequest(request: SlackRequestToVerify): void {
  const { timestamp, signature } = request;
  if (timestamp === undefined || timestamp === "" || signature === undefined || signature === "") {
    throw new SlackSignatureError("missing headers");
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw new SlackSignatureError("stale timestamp");
  const skew = Math.abs(Math.floor(request.now.getTime() / 1000) - Number(timestamp));
  if (skew > SLACK_TIMESTAMP_TOLERANCE_SECONDS) throw new SlackSignatureError("stale timestamp");

  const received = Buffer.from(signature, "utf8");
  if (signedWith(request.signingSecret, timestamp, request.rawBody, received)) return;
  const previous = request.previousSigningSecret;
  const inWindow = previous !== undefined && request.now.getTime() <= previous.acceptedUntil.getTime();
  if (inWindow && signedWith(previous.secret, timestamp, request.rawBody, received)) return;
  throw new SlackSignatureError("bad signature");
}

function signedWith(secret: string, timestamp: string, rawBody: string, received: Buffer): boolean {
  const expected = Buffer.from(slackSignature(secret, timestamp, rawBody), "utf8");
  // timingSafeEqual needs equal lengths; a length mismatch reveals only the length of a public format.
  return received.length === expected.length && timingSafeEqual(received, expected);
}
