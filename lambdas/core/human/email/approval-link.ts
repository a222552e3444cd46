import { createHmac, timingSafeEqual } from "node:crypto";
import { GoalLoopsError } from "../../goal/errors";
import { APPROVAL_ID_PATTERN } from "../../goal/goal-ids";
import * as z from "../../zod";

/** What an email link may decide; the same two words as the API's `decision`. */
export const LinkDecisionSchema = /* @__PURE__ */ z.lazySchema(() => z.enum(["approve", "reject"]));
export type LinkDecision = z.infer<typeof LinkDecisionSchema>;

/** The route the links point at, under the API's public base URL. */
export const EMAIL_APPROVAL_PATH = "/email/approvals";

/**
 * Approval ids as the system issues them (`ap-` and 32 hex digits). `|`, the separator of the
 * signed text, is never part of one, so two different links never sign the same text.
 */
const APPROVAL_ID = APPROVAL_ID_PATTERN;
/** Epoch seconds, as written by `signApprovalLink`: digits only, no sign, no exponent. */
const EPOCH_SECONDS = /^\d{1,12}$/;
/**
 * An approver address as a link carries it: one `@`, no whitespace, at most 254 characters (the
 * longest address SMTP carries). It is signed last, so a `|` in it cannot shift another part.
 */
const APPROVER = /^[^@\s]{1,64}@[^@\s]{1,253}$/;
/** A base64url SHA-256 HMAC: 32 bytes are 43 characters without padding. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;
/** Shorter keys are a misconfiguration (an empty variable, a placeholder), not a secret. */
export const MIN_LINK_SECRET_LENGTH = 32;

export type ApprovalLinkFailure = "tampered" | "expired" | "malformed";

/**
 * An email link that cannot decide anything, and why: `malformed` (a part is missing or not of
 * its form), `tampered` (the signature does not match what the link says: some part was changed,
 * or it was never signed with our key), `expired` (correctly signed, but past its expiry).
 */
export class ApprovalLinkError extends GoalLoopsError {
  override readonly name = "ApprovalLinkError";
  readonly reason: ApprovalLinkFailure;
  /** When an `expired` link stopped working. */
  readonly expiredAt?: Date;

  constructor(reason: ApprovalLinkFailure, message: string, expiredAt?: Date) {
    super(message);
    this.reason = reason;
    if (expiredAt !== undefined) this.expiredAt = expiredAt;
  }
}

/** The key is missing or too short to be one: a deployment bug, not a bad link. */
export class ApprovalLinkSecretError extends GoalLoopsError {
  override readonly name = "ApprovalLinkSecretError";
}

export interface SignApprovalLinkInput {
  /** The API's public base URL, e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/v1/`. */
  readonly baseUrl: string;
  readonly approvalId: string;
  readonly decision: LinkDecision;
  /** After this instant the link is refused (rounded down to the second). */
  readonly expiresAt: Date;
  /** The approver address the email goes to: the link decides as this address, and only while it is an approver. */
  readonly approver: string;
  readonly secret: string;
}

/** A verified link: what it decides, for whom, and until when it could. */
export interface VerifiedApprovalLink {
  readonly approvalId: string;
  readonly decision: LinkDecision;
  readonly expiresAt: Date;
  /** The address the link was sent to (signed with the rest). */
  readonly approver: string;
  /** The link's `sig`, to post the same signed query back. */
  readonly signature: string;
}

/** The link's parts as a request carries them: raw text, any of them possibly absent. */
export interface ApprovalLinkParts {
  readonly approvalId: string | undefined;
  readonly decision: string | undefined;
  readonly expires: string | undefined;
  readonly approver: string | undefined;
  readonly sig: string | undefined;
}

function assertSecret(secret: string): void {
  if (secret.length < MIN_LINK_SECRET_LENGTH) {
    throw new ApprovalLinkSecretError(
      `The email link secret must be at least ${MIN_LINK_SECRET_LENGTH} characters`,
    );
  }
}

/** HMAC-SHA256 of `approvalId|decision|expires|approver`, base64url without padding. */
function signatureOf(
  secret: string,
  approvalId: string,
  decision: LinkDecision,
  expires: string,
  approver: string,
): Buffer {
  return createHmac("sha256", secret)
    .update(`${approvalId}|${decision}|${expires}|${approver}`, "utf8")
    .digest();
}

/**
 * A link that approves or rejects one approval until `expiresAt`, as one approver:
 * `{baseUrl}/email/approvals/{approvalId}?decision=…&expires=<epoch s>&approver=<address>&sig=<HMAC>`.
 * It carries only the approval's id, the decision, the expiry, the address it was sent to and the
 * HMAC over all four; the task token stays in the store.
 */
export function signApprovalLink(input: SignApprovalLinkInput): string {
  assertSecret(input.secret);
  if (!APPROVAL_ID.test(input.approvalId)) {
    throw new ApprovalLinkError("malformed", `Approval id '${input.approvalId}' cannot go in a link`);
  }
  const expiresMs = input.expiresAt.getTime();
  if (!Number.isFinite(expiresMs) || expiresMs < 0) {
    throw new ApprovalLinkError("malformed", "The link's expiry is not a valid instant");
  }
  if (!APPROVER.test(input.approver)) {
    throw new ApprovalLinkError(
      "malformed",
      `'${input.approver}' is not an approver address a link can carry`,
    );
  }
  const expires = String(Math.floor(expiresMs / 1000));
  const sig = signatureOf(input.secret, input.approvalId, input.decision, expires, input.approver).toString(
    "base64url",
  );
  const query = new URLSearchParams({ decision: input.decision, expires, approver: input.approver, sig });
  const base = input.baseUrl.replace(/\/+$/, "");
  return `${base}${EMAIL_APPROVAL_PATH}/${encodeURIComponent(input.approvalId)}?${query.toString()}`;
}

/**
 * Checks a link's parts, in this order: every part present and of its form (else `malformed`), the
 * signature over approval, decision, expiry and approver (else `tampered`, compared in constant
 * time), then the expiry (else `expired`). Whether the address is still an approver is the door's
 * check (`isEmailApprover`). The signature comes before the expiry, so a link whose expiry was
 * pushed back reads as tampered.
 */
export function verifyApprovalLink(
  parts: ApprovalLinkParts & { readonly secret: string; readonly now: Date },
): VerifiedApprovalLink {
  assertSecret(parts.secret);
  const { approvalId, expires, approver, sig } = parts;
  const decision = LinkDecisionSchema.safeParse(parts.decision);
  if (approvalId === undefined || !APPROVAL_ID.test(approvalId)) {
    throw new ApprovalLinkError("malformed", "The link does not name an approval");
  }
  if (!decision.success) {
    throw new ApprovalLinkError("malformed", "The link's decision is missing or is not approve or reject");
  }
  if (expires === undefined || !EPOCH_SECONDS.test(expires)) {
    throw new ApprovalLinkError("malformed", "The link's expiry is missing or is not a time");
  }
  if (approver === undefined || !APPROVER.test(approver)) {
    throw new ApprovalLinkError("malformed", "The link does not name the approver it was sent to");
  }
  if (sig === undefined || !SIGNATURE.test(sig)) {
    throw new ApprovalLinkError("malformed", "The link's signature is missing or cut short");
  }
  // Compared as text, not as decoded bytes: base64 ignores the last character's spare bits, so
  // two different `sig` strings can decode to the same bytes. Both are 43 ASCII characters here.
  const expected = Buffer.from(
    signatureOf(parts.secret, approvalId, decision.data, expires, approver).toString("base64url"),
  );
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ApprovalLinkError("tampered", "The link was changed after it was sent, or was not sent by us");
  }
  const expiresAt = new Date(Number(expires) * 1000);
  if (parts.now.getTime() >= expiresAt.getTime()) {
    throw new ApprovalLinkError("expired", `The link expired at ${expiresAt.toISOString()}`, expiresAt);
  }
  return { approvalId, decision: decision.data, expiresAt, approver, signature: sig };
}
