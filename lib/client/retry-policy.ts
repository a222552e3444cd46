/**
 * When the client tries a request again: 429 and 5xx answers, and a connection that failed before
 * any answer. A POST is retried only when a retry cannot act twice: it carries an Idempotency-Key
 * (the client adds one to `createGoal` and `forkGoal`), or the answer says nothing was done (429,
 * 503). `Retry-After` (seconds or an HTTP date) is honoured up to `maxDelayMs`; without it the wait
 * is exponential with full jitter.
 */
export interface RetryPolicy {
  /** Tries in all, the first included. @default 4 */
  readonly maxAttempts?: number;
  /** @default 250 */
  readonly baseDelayMs?: number;
  /** @default 20000 */
  readonly maxDelayMs?: number;
}

const NOTHING_DONE = new Set([429, 503]);

export function isRetryable(status: number, method: string, idempotent: boolean): boolean {
  if (status !== 429 && status < 500) return false;
  return method === "GET" || idempotent || NOTHING_DONE.has(status);
}

/** The wait before try number `attempt + 1` (attempt counts from 1). */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfter: string | null,
  now: () => number = Date.now,
  random: () => number = Math.random,
): number {
  const max = policy.maxDelayMs ?? 20_000;
  const fromHeader = retryAfterMs(retryAfter, now);
  if (fromHeader !== undefined) return Math.min(fromHeader, max);
  const ceiling = Math.min(max, (policy.baseDelayMs ?? 250) * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

function retryAfterMs(value: string | null, now: () => number): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now());
}
