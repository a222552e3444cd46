import { spawn } from "node:child_process";
import { join } from "node:path";
import { PROJECT_DIR } from "./local-stack-harness";

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the CLI as `npx goal-loops` does (the bin shim under plain node), from the project folder.
 * stdin is a pipe, not a TTY: the CLI is not interactive, as in CI. With `closedStdout`, the reader
 * of its output is gone before it writes (`goal-loops … | head -1` once head has its line).
 */
export function runCli(
  args: readonly string[],
  options: { closedStdout?: boolean } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(PROJECT_DIR, "bin", "goal-loops.mjs"), ...args], {
      cwd: PROJECT_DIR,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    });
    let stdout = "";
    let stderr = "";
    if (options.closedStdout) child.stdout.destroy();
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
