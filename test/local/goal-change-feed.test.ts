import { afterEach, describe, expect, it } from "vitest";
import { PARTITION_PREFIXES } from "../../lambdas/adapters/dynamodb/table-design";
import { type GoalChangeFeed, startGoalChangeFeed } from "../../lib/local/storage/goal-change-feed";

/** A promise whose resolution the test decides: a read of the table that takes as long as the test wants. */
function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

describe("the local change feed (GET /changes)", () => {
  let feed: GoalChangeFeed | undefined;
  const seqs = new Map<string, number>();

  afterEach(async () => {
    await feed?.close();
    feed = undefined;
    seqs.clear();
  });

  async function start(lastEventSeq?: (goalId: string) => Promise<number | undefined>) {
    feed = await startGoalChangeFeed({ lastEventSeq: lastEventSeq ?? (async (goalId) => seqs.get(goalId)) });
    return feed;
  }

  function ask(goalId: string, after: number, timeoutMs: number, signal?: AbortSignal) {
    const url = `${feed?.url}/changes?goalId=${goalId}&after=${after}&timeoutMs=${timeoutMs}`;
    return fetch(url, signal ? { signal } : {}).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as { changed?: boolean; message?: string },
    }));
  }

  function write(goalId: string, seq: number) {
    seqs.set(goalId, seq);
    feed?.noticeWrite({ tableName: "goals", partitionKeys: [`${PARTITION_PREFIXES.goal}${goalId}`] });
  }

  it("answers at once when the goal already has an event after `after`", async () => {
    // Prepare
    await start();
    seqs.set("g-1", 5);

    // Act
    const answer = await ask("g-1", 4, 60_000);

    // Assess
    expect(answer).toEqual({ status: 200, body: { changed: true } });
  });

  it("wakes a subscriber at the goal's next write, not at another goal's", async () => {
    // Prepare
    await start();
    seqs.set("g-1", 1);
    seqs.set("g-2", 1);
    const waiting = ask("g-1", 1, 60_000);
    let answered = false;
    void waiting.then(() => {
      answered = true;
    });
    // A round trip to the feed, so the first request reached it before the writes.
    await ask("g-2", 0, 1000);

    // Act
    write("g-2", 2);
    const other = await ask("g-2", 1, 1000);
    const stillWaiting = !answered;
    write("g-1", 2);

    // Assess
    expect(other.body).toEqual({ changed: true });
    expect(stillWaiting).toBe(true);
    expect(await waiting).toEqual({ status: 200, body: { changed: true } });
  });

  it("answers changed: false at the timeout when nothing was written", async () => {
    // Prepare
    await start();
    seqs.set("g-1", 3);

    // Act
    const answer = await ask("g-1", 3, 50);

    // Assess
    expect(answer).toEqual({ status: 200, body: { changed: false } });
  });

  it("forgets a subscriber that went away: a later write wakes only the ones still listening", async () => {
    // Prepare
    await start();
    seqs.set("g-1", 1);
    const leaving = new AbortController();
    const gone = ask("g-1", 1, 60_000, leaving.signal).catch((error: Error) => error.name);
    const staying = ask("g-1", 1, 60_000);

    // Act
    leaving.abort();
    const goneAnswer = await gone;
    write("g-1", 2);

    // Assess
    expect(goneAnswer).toBe("AbortError");
    expect(await staying).toEqual({ status: 200, body: { changed: true } });
  });

  it("is not held up by a slow read for one goal: another goal's subscriber answers meanwhile", async () => {
    // Prepare: reads of g-slow hang until the test lets them go
    const slowRead = deferred<number | undefined>();
    await start((goalId) => (goalId === "g-slow" ? slowRead.promise : Promise.resolve(seqs.get(goalId))));
    seqs.set("g-fast", 1);
    const slow = ask("g-slow", 0, 60_000);

    // Act
    const fast = ask("g-fast", 1, 60_000);
    await ask("g-fast", 0, 1000);
    write("g-fast", 2);
    const fastAnswer = await fast;
    slowRead.resolve(1);

    // Assess
    expect(fastAnswer).toEqual({ status: 200, body: { changed: true } });
    expect(await slow).toEqual({ status: 200, body: { changed: true } });
  });

  it("refuses a malformed request with 400 and the form it expects", async () => {
    // Prepare
    await start();

    // Act
    const response = await fetch(`${feed?.url}/changes?goalId=g-1&after=-1&timeoutMs=10`);

    // Assess
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: "GET /changes?goalId=&after=&timeoutMs=" });
  });
});
