import http from "node:http";
import * as z from "zod";
import { PARTITION_PREFIXES } from "../../../lambdas/adapters/dynamodb/table-design";
import { listen, type RunningServer } from "../shared/listen";
import type { DynamoWrite } from "./dynamo";

/** The longest one request to the feed is held; a long poll waits 20 s, a stream re-asks. */
const MAX_HOLD_MS = 60_000;

const ChangesQuerySchema = z.object({
  goalId: z.string().min(1).max(256),
  after: z.coerce.number().int().min(0),
  timeoutMs: z.coerce.number().int().min(0).max(MAX_HOLD_MS),
});

export interface GoalChangeFeed {
  /** What the functions' `GOAL_CHANGE_FEED_URL` points at. */
  readonly url: string;
  /** Tells the feed of a write to the local DynamoDB (wired to `startLocalDynamo`'s `onWrite`). */
  noticeWrite(write: DynamoWrite): void;
  close(): Promise<void>;
}

/**
 * The local runtime's change feed: `GET /changes?goalId=&after=&timeoutMs=` answers as soon as the
 * goal's last event is after `after` (`{changed: true}`), or `{changed: false}` at the timeout. It
 * learns of writes from the local DynamoDB itself, so the long poll and the event stream of the
 * functions wake within milliseconds of a commit, with no polling. Deployed, nothing like it
 * exists: the functions poll the table with backoff instead (polling-event-waiter.ts).
 */
export async function startGoalChangeFeed(options: {
  /** The goal's last event seq, read from the goal table; undefined for an unknown goal. */
  readonly lastEventSeq: (goalId: string) => Promise<number | undefined>;
  readonly port?: number;
}): Promise<GoalChangeFeed> {
  const waiters = new Map<string, Set<() => void>>();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://local");
    const query = ChangesQuerySchema.safeParse(Object.fromEntries(url.searchParams));
    if (url.pathname !== "/changes" || req.method !== "GET" || !query.success) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: "GET /changes?goalId=&after=&timeoutMs=" }));
      return;
    }
    const { goalId, after, timeoutMs } = query.data;
    const deadline = Date.now() + timeoutMs;
    let closed = false;
    res.on("close", () => {
      closed = true;
    });
    let changed = false;
    while (!closed && Date.now() < deadline) {
      // Listening before reading: a write between the read and the wait still wakes it.
      const written = nextWrite(waiters, goalId, deadline - Date.now());
      const last = await options.lastEventSeq(goalId).catch(() => undefined);
      if (last !== undefined && last > after) {
        written.cancel();
        changed = true;
        break;
      }
      await written.promise;
    }
    if (closed) return;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ changed }));
  });
  const running: RunningServer = await listen(server, options.port);
  return {
    url: running.url,
    noticeWrite(write) {
      for (const key of write.partitionKeys) {
        if (!key.startsWith(PARTITION_PREFIXES.goal)) continue;
        const goalId = key.slice(PARTITION_PREFIXES.goal.length);
        for (const wake of waiters.get(goalId) ?? []) wake();
      }
    },
    close: running.close,
  };
}

/** Resolves at the goal's next write or after `ms`; `cancel` stops listening. */
function nextWrite(waiters: Map<string, Set<() => void>>, goalId: string, ms: number) {
  let wake = () => {};
  const promise = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const timer = setTimeout(wake, Math.max(0, ms));
  const set = waiters.get(goalId) ?? new Set();
  waiters.set(goalId, set);
  set.add(wake);
  const cancel = () => {
    clearTimeout(timer);
    set.delete(wake);
    if (set.size === 0) waiters.delete(goalId);
  };
  void promise.then(cancel);
  return { promise, cancel };
}
