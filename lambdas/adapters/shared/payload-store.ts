import { GoalLoopsError } from "../../core/goal/errors";

/**
 * Where the goal store keeps bodies too large for a DynamoDB item: the payload bucket in AWS, a
 * local S3 emulator on a laptop. Keys are content-addressed (`<item partition>/<sha256>`), so a
 * body is never overwritten by a different one and a retried put writes the same bytes again.
 */
export interface PayloadStore {
  /** Stores `body` under `key`; putting the same key again is harmless (same bytes). */
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** The body under `key`. Throws PayloadMissingError when there is none. */
  get(key: string): Promise<Uint8Array>;
}

/**
 * An item points at a body the bucket does not have (deleted by hand, or expired by the bucket's
 * lifecycle rule before the item it belongs to). Never retried: the body will not come back.
 */
export class PayloadMissingError extends GoalLoopsError {
  override readonly name = "PayloadMissingError";
}
