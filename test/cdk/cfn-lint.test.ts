import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { ensureSynthesized } from "../../lib/local/cdk-out";

const PROJECT_DIR = resolve(import.meta.dirname, "../..");
const CDK_OUT = join(PROJECT_DIR, "cdk.out");

/** cfn-lint's exit code is a bitmask: 2 errors, 4 warnings, 8 informational; anything else is a crash. */
const ERRORS_BIT = 2;
const NON_FAILING_BITS = 4 | 8;

/** The cfn-lint on PATH (pip installs it on the project's machines; `.ci/run` relies on that), or why not. */
function findCfnLint(): { readonly version: string } | { readonly missing: string } {
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

const cfnLint = findCfnLint();
if ("missing" in cfnLint) {
  // Said on the console as well as in the skipped test's name, so nobody reads a green run as linted.
  console.warn(
    `SKIPPED: cfn-lint over cdk.out/*.template.json did not run: ${cfnLint.missing}. Install it with 'pip install cfn-lint'.`,
  );
}

describe("the synthesized CloudFormation templates", () => {
  let templates: string[] = [];

  beforeAll(async () => {
    // The default vitest config's globalSetup synthesizes cdk.out already; this only catches a run
    // without it (a single file under another config), and does nothing when cdk.out is fresh.
    await ensureSynthesized({ projectDir: PROJECT_DIR, outDir: CDK_OUT, log: () => undefined });
    templates = readdirSync(CDK_OUT)
      .filter((file) => file.endsWith(".template.json"))
      .map((file) => join(CDK_OUT, file));
  }, 600_000);

  it.skipIf("missing" in cfnLint)(
    `pass cfn-lint with no error (warnings allowed)${"missing" in cfnLint ? ` — skipped: ${cfnLint.missing}` : ""}`,
    () => {
      // Prepare
      expect(templates.length, "no cdk.out/*.template.json to lint").toBeGreaterThan(0);

      // Act
      const run = spawnSync("cfn-lint", ["--format", "json", "--", ...templates], {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });

      // Assess
      const status = run.status ?? -1;
      const crashed = status < 0 || (status & ~(ERRORS_BIT | NON_FAILING_BITS)) !== 0;
      expect(crashed, `cfn-lint exited ${status}: ${run.stderr}`).toBe(false);
      const matches = z.array(MatchSchema).parse(JSON.parse(run.stdout || "[]"));
      const errors = matches
        .filter((match) => match.Level === "Error")
        .map(
          (match) => `${match.Filename}:${match.Location.Start.LineNumber} ${match.Rule.Id} ${match.Message}`,
        );
      expect(errors).toEqual([]);
      expect(status & ERRORS_BIT, "cfn-lint's exit code says it found errors").toBe(0);
    },
  );
});
