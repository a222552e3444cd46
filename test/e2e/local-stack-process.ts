import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GoalLoopsClient } from "../../lib/client/index";
import type { ContractViolation } from "../../lib/local/api/openapi-response-check";
import { assertNoViolations, contractCheckingFetch } from "./contract-checking-fetch";
import { PROJECT_DIR } from "./local-stack-harness";

/**
 * `npm start` as a user runs it, in a process group of its own on a kept state folder, so a test can
 * kill it the hard way (SIGKILL on the group: the stack, its Lambda sandboxes and its servers die
 * at once, mid-write or mid-call) and start it again on the same folder.
 */
export interface LocalStackProcess {
  readonly apiUrl: string;
  readonly client: GoalLoopsClient;
  /** What the client was answered that the OpenAPI document does not describe; kill and stop throw on any. */
  readonly contractViolations: readonly ContractViolation[];
  /** Everything it printed so far. */
  readonly output: () => string;
  /** SIGKILL on its process group; resolves once it exited. */
  kill(): Promise<void>;
  /** Ctrl+C (SIGINT): it stops gracefully; resolves once it exited. */
  stop(): Promise<void>;
}

/** The fixtures folder of a state folder: the examples', the end-to-end ones, and `extra` (name → fixture). */
export function writeFixtures(stateDir: string, extra: Readonly<Record<string, unknown>>): string {
  const fixturesDir = join(stateDir, "fixtures");
  mkdirSync(fixturesDir, { recursive: true });
  for (const source of [join(PROJECT_DIR, "examples", "fixtures"), join(import.meta.dirname, "fixtures")]) {
    for (const file of readdirSync(source)) cpSync(join(source, file), join(fixturesDir, file));
  }
  for (const [name, fixture] of Object.entries(extra)) {
    writeFileSync(join(fixturesDir, `${name}.json`), JSON.stringify(fixture));
  }
  return fixturesDir;
}

const API_LINE = /API\s+(http:\/\/127\.0\.0\.1:\d+)/;

/**
 * Starts `goal-loops start --state-dir <stateDir> --fixtures <stateDir>/fixtures --port 0` (what
 * `npm start` runs: the compiled CLI, on this repository's app) and
 * resolves once it printed its API address (after re-attaching the goals it found), or rejects when
 * it exits first or `startupMs` passes.
 */
export async function startLocalStackProcess(
  stateDir: string,
  options: {
    readonly startupMs?: number;
    /** More `npm start` flags (`--model`, `--record` …). */
    readonly args?: readonly string[];
    /** More variables for the shell that runs it (AWS_ENDPOINT_URL_BEDROCK_RUNTIME …). */
    readonly env?: Readonly<Record<string, string>>;
    /** The CLI script to run (another version's build of it); by default this repository's bin shim. */
    readonly cli?: string;
  } = {},
): Promise<LocalStackProcess> {
  const child = spawn(
    process.execPath,
    [
      options.cli ?? join(PROJECT_DIR, "bin", "goal-loops.mjs"),
      "start",
      "--state-dir",
      stateDir,
      "--fixtures",
      join(stateDir, "fixtures"),
      "--port",
      "0",
      ...(options.args ?? []),
    ],
    {
      cwd: PROJECT_DIR,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      // The bin shim quiets the AWS SDK's Node 20 notice; another CLI script is run without it.
      env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", ...process.env, ...options.env },
    },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = once(child, "exit");
  try {
    const apiUrl = await apiAddress(child, () => output, options.startupMs ?? 180_000);
    const violations: ContractViolation[] = [];
    return {
      apiUrl,
      client: new GoalLoopsClient(apiUrl, { fetch: contractCheckingFetch(violations) }),
      contractViolations: violations,
      output: () => output,
      kill: async () => {
        await signalGroup(child, "SIGKILL", exited);
        assertNoViolations(violations);
      },
      stop: async () => {
        await signalGroup(child, "SIGINT", exited);
        assertNoViolations(violations);
      },
    };
  } catch (error) {
    await signalGroup(child, "SIGKILL", exited);
    throw error;
  }
}

async function signalGroup(child: ChildProcess, signal: NodeJS.Signals, exited: Promise<unknown>) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch (error) {
    // The group is gone already (it exited between the check and the signal).
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
  await exited;
}

function apiAddress(child: ChildProcess, output: () => string, startupMs: number): Promise<string> {
  return new Promise((resolveAddress, reject) => {
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`npm start printed no API address within ${startupMs} ms:\n${output()}`));
    }, startupMs);
    const onData = () => {
      const found = API_LINE.exec(output());
      if (!found?.[1]) return;
      finish();
      resolveAddress(found[1]);
    };
    const onExit = (code: number | null, signal: string | null) => {
      finish();
      reject(new Error(`npm start exited (${code ?? signal}) before it answered:\n${output()}`));
    };
    const finish = () => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
    };
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
  });
}
