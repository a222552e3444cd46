import { SLACK_TIMESTAMP_TOLERANCE_SECONDS, SlackSignatureError } from "./verify-signature";

/**
 * Remembers which signed requests were already handled, for as long as their signature is valid.
 * A signature covers the timestamp and the body, so a second request with the same signature is
 * the same request sent again. Shared by every Lambda instance (the DynamoDB adapter), so a replay
 * that reaches another instance is refused as well.
 */
export interface ReplayGuard {
  /**
   * Records `signature` until `expiresAt` and answers true, or answers false when it was already
   * recorded. Exactly one of several concurrent calls with one signature answers true.
   */
  firstSeen(signature: string, expiresAt: Date): Promise<boolean>;
}

/** Refuses a request whose signature was seen before; call it after the signature is verified. */
export async function refuseReplay(guard: ReplayGuard, signature: string, timestamp: string): Promise<void> {
  // After this instant the timestamp check refuses the request anyway; one extra minute covers skew.
  const expiresAt = new Date((Number(timestamp) + SLACK_TIMESTAMP_TOLERANCE_SECONDS + 60) * 1000);
  if (!(await guard.firstSeen(signature, expiresAt))) throw new SlackSignatureError("replayed");
}
