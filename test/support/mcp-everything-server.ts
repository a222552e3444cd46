import { type ChildProcess, spawn } from "node:child_process";
import { createConnection } from "node:net";
import { resolve } from "node:path";

const PROJECT_DIR = resolve(import.meta.dirname, "../..");
const SERVER_ENTRY = resolve(
  PROJECT_DIR,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
const BIND_LOOPBACK = resolve(import.meta.dirname, "bind-loopback.cjs");

export interface EverythingServer {
  readonly url: string;
  /** Kills the server (SIGKILL): open sessions and calls die with it. */
  kill(): Promise<void>;
}

/**
 * `@modelcontextprotocol/server-everything` (the MCP reference test server) in its Streamable HTTP
 * mode on `port`, bound to 127.0.0.1 only, started as its own process; resolves once it accepts
 * connections. A port already taken fails here, naming it, instead of in a later test.
 */
export async function startEverythingServer(port: number): Promise<EverythingServer> {
  if (await accepts(port)) throw new Error(`port ${port} is taken: the MCP test server cannot listen there`);
  const child = spawn(process.execPath, ["-r", BIND_LOOPBACK, SERVER_ENTRY, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const deadline = Date.now() + 20_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server-everything did not start on ${port}: ${output.join("")}`);
    }
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, kill: () => kill(child) };
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveExit) => {
    child.once("exit", () => resolveExit());
    child.kill("SIGKILL");
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolveAccepts) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolveAccepts(true);
    });
    socket.once("error", () => resolveAccepts(false));
  });
}
