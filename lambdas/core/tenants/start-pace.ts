import { GoalLoopsError } from "../goal/errors";
import type { TenantStore } from "../ports/tenant-store";

const MINUTE_MS = 60_000;
/** Starts refused this many times in a row by a racing start give up with a short Retry-After. */
const MAX_CONFLICTS = 8;

/**
 * `POST /goals` over the tenant's `startsPerMinute`: 429 with `Retry-After` and the limit's name. The
 * goal was not stored and nothing of it ran.
 */
export class StartLimitError extends GoalLoopsError {
  override readonly name = "TenantStartLimit";
  readonly limit = "startsPerMinute";
  constructor(
    readonly tenantId: string,
    readonly perMinute: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      `Tenant '${tenantId}' may start ${perMinute} goal(s) per minute (tenants.limits startsPerMinute); try again in ${retryAfterSeconds} s`,
    );
  }
}

/**
 * The generic cell rate algorithm with a whole minute of tolerance: starts are spaced
 * `60 s / perMinute` apart on average, and up to `perMinute` may come at once after a quiet minute.
 * `tat` is when the next start would be "on time"; a start is allowed while it lies at most a
 * minute ahead. Answers the TAT after the start, or how long until one is allowed.
 */
export function paceStart(
  tatMs: number | undefined,
  nowMs: number,
  perMinute: number,
):
  | { readonly allowed: true; readonly tatMs: number }
  | { readonly allowed: false; readonly retryAfterMs: number } {
  const intervalMs = MINUTE_MS / perMinute;
  const next = Math.max(tatMs ?? nowMs, nowMs) + intervalMs;
  const ahead = next - nowMs;
  return ahead <= MINUTE_MS
    ? { allowed: true, tatMs: next }
    : { allowed: false, retryAfterMs: ahead - MINUTE_MS };
}

/**
 * Takes one start of the tenant's pace, or throws StartLimitError. One read and one conditional
 * write; a start that raced another reads again.
 */
export async function takeStart(
  store: Pick<TenantStore, "readStartTat" | "writeStartTat">,
  tenantId: string,
  perMinute: number,
  now: Date,
): Promise<void> {
  for (let attempt = 0; attempt < MAX_CONFLICTS; attempt += 1) {
    const tat = await store.readStartTat(tenantId);
    const paced = paceStart(tat, now.getTime(), perMinute);
    if (!paced.allowed) {
      throw new StartLimitError(tenantId, perMinute, Math.max(1, Math.ceil(paced.retryAfterMs / 1000)));
    }
    if (await store.writeStartTat(tenantId, tat, paced.tatMs)) return;
  }
  throw new StartLimitError(tenantId, perMinute, 1);
}
