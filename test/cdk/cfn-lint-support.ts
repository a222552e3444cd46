import { spawn, spawnSync } from "node:child_process";
import * as z from "zod";

/** cfn-lint's exit code is a bitmask: 2 errors, 4 warnings, 8 informational; anything else is a crash. */
const ERRORS_BIT = 2;
const NON_FAILING_BITS = 4 | 8;

/** The cfn-lint on PATH (pip installs it on the project's machines; `.ci/run` relies on that), or why not. */
export function findCfnLint(): { readonly version: string } | { readonly missing: string } {
  const probe = spawnSync("cfn-lint", ["--version"], { encoding: "utf8" });
  if (probe.error !== undefined) return { missing: `cfn-lint is not on PATH (${probe.error.message})` };
  if (probe.status !== 0)
    return { missing: `cfn-lint --version exited ${probe.status}: ${probe.stderr.trim()}` };
  return { version: probe.stdout.trim() };
}

const MatchSchema = z.looseObject({
  Filename: z.string(),
  Level: z.string(),
  Message: z.string(),
  Rule: z.looseObject({ Id: z.string() }),
  Location: z.looseObject({ Start: z.looseObject({ LineNumber: z.number() }) }),
});

export interface CfnLintResult {
  /** cfn-lint's exit code. */
  readonly status: number;
  /** A crash rather than findings: an exit code with bits beyond errors, warnings and informational. */
  readonly crashed: boolean;
  /** Every error, as `<file>:<line> <rule> <message>`. */
  readonly errors: readonly string[];
  readonly stderr: string;
}

/**
 * Lints `templates` in one cfn-lint run (asynchronously: other tests of the file keep running), and
 * reads its JSON output. Warnings pass (CDK's own `DependsOn` gives W3005); errors are listed.
 */
export function lintTemplates(templates: readonly string[]): Promise<CfnLintResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("cfn-lint", ["--format", "json", "--", ...templates]);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.once("error", reject);
    child.once("close", (code) => {
      const status = code ?? -1;
      const crashed = status < 0 || (status & ~(ERRORS_BIT | NON_FAILING_BITS)) !== 0;
      const text = Buffer.concat(stdout).toString("utf8");
      const matches = crashed ? [] : z.array(MatchSchema).parse(JSON.parse(text || "[]"));
      resolve({
        status,
        crashed,
        errors: matches
          .filter((match) => match.Level === "Error")
          .map(
            (match) =>
              `${match.Filename}:${match.Location.Start.LineNumber} ${match.Rule.Id} ${match.Message}`,
          ),
        stderr: Buffer.concat(stderr).toString("utf8"),
      });
    });
  });
}

/** Whether cfn-lint's exit code says it found errors. */
export function reportsErrors(result: CfnLintResult): boolean {
  return (result.status & ERRORS_BIT) !== 0;
}
