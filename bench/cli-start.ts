import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./scenarios";

export interface CliStartFigure {
  /** Median wall-clock ms of `goal-loops --help`, the package laid out as npm installs it. */
  readonly helpMs: number;
  /** Median wall-clock ms of `node -e 0`: the floor any CLI on this machine starts from. */
  readonly nodeMs: number;
}

/** Wall-clock ms of one run of a command, which must exit 0. */
function timed(args: readonly string[]): number {
  const started = performance.now();
  const child = spawnSync(process.execPath, args, { stdio: "ignore", timeout: 30_000 });
  const ms = performance.now() - started;
  if (child.status !== 0) throw new Error(`node ${args.join(" ")} exited ${child.status ?? child.signal}`);
  return ms;
}

/**
 * How fast the CLI starts as `npm install goal-loops` leaves it: the bin shim and the compiled
 * dist/cli copied into a folder of their own, without the TypeScript sources beside them (so the
 * shim's clone-only freshness check does not run), their dependencies this project's node_modules.
 * The runs alternate with `node -e 0` so both see the same load. Needs dist/cli built.
 */
export function measureCliStart(projectDir: string, runs: number): CliStartFigure {
  const installed = mkdtempSync(join(tmpdir(), "goal-loops-installed-"));
  try {
    mkdirSync(join(installed, "bin"));
    cpSync(join(projectDir, "bin", "goal-loops.mjs"), join(installed, "bin", "goal-loops.mjs"));
    cpSync(join(projectDir, "dist", "cli"), join(installed, "dist", "cli"), { recursive: true });
    cpSync(join(projectDir, "package.json"), join(installed, "package.json"));
    symlinkSync(join(projectDir, "node_modules"), join(installed, "node_modules"), "dir");
    const shim = join(installed, "bin", "goal-loops.mjs");
    timed([shim, "--help"]);
    const help: number[] = [];
    const node: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      help.push(timed([shim, "--help"]));
      node.push(timed(["-e", "0"]));
    }
    return { helpMs: median(help), nodeMs: median(node) };
  } finally {
    rmSync(installed, { recursive: true, force: true });
  }
}
