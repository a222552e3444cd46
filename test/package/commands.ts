import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

export interface CommandResult {
  readonly code: number | null;
  /** stdout and stderr as they came. */
  readonly output: string;
  readonly stdout: string;
  /** Wall-clock seconds, for the test's own log of where its time goes. */
  readonly seconds: number;
}

/** Runs a command to its end, stdout and stderr together; never throws on a non-zero exit. */
export async function run(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv },
): Promise<CommandResult> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
  let output = "";
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const code = await new Promise<number | null>((resolveClose, reject) => {
    child.once("error", reject);
    child.once("close", resolveClose);
  });
  return { code, output, stdout, seconds: (performance.now() - started) / 1000 };
}

export interface ServingProcess {
  readonly apiUrl: string;
  readonly output: () => string;
  /** SIGINT to its process group (Ctrl+C), SIGKILL if it has not exited 15 s later; resolves once it exited. */
  stop(): Promise<void>;
}

const API_LINE = /API\s+(http:\/\/127\.0\.0\.1:\d+)/;

/**
 * Starts a long-running command (`goal-loops start`) in a process group of its own and resolves once
 * it printed its API address, or rejects with what it printed when it exits first or `startupMs`
 * passes.
 */
export async function startServing(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv; readonly startupMs: number },
): Promise<ServingProcess> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = once(child, "exit");
  const apiUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no API address within ${options.startupMs} ms:\n${output}`));
    }, options.startupMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const found = API_LINE.exec(output);
      if (found?.[1] === undefined) return;
      done();
      resolveUrl(found[1]);
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`exited (${code}) before serving:\n${output}`));
    };
    const done = () => {
      clearTimeout(timer);
      child.off("exit", onExit);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", onExit);
  }).catch(async (error: unknown) => {
    await signalGroup(child, "SIGKILL", exited);
    throw error;
  });
  const stop = async () => {
    const killLater = setTimeout(() => void signalGroup(child, "SIGKILL", exited), 15_000);
    await signalGroup(child, "SIGINT", exited);
    clearTimeout(killLater);
  };
  return { apiUrl, output: () => output, stop };
}

async function signalGroup(child: ChildProcess, signal: NodeJS.Signals, exited: Promise<unknown>) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
  await exited;
}
