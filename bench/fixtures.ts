import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Fixture files the bench writes into its own temporary folder (`scripted:<name>`). */
export const FIXTURES = {
  long: "bench-long",
  overhead: "bench-overhead",
  short: "bench-short",
  approval: "bench-approval",
  largePayload: "bench-large-payload",
} as const;

const MODULES = ["core/retry", "api/routes", "store/dynamo", "tools/http", "cli/run", "local/engine"];

/** A finding note of about 300 tokens: what an exploratory step writes down. */
function finding(index: number): string {
  const module = MODULES[index % MODULES.length];
  const lines = [
    `# Finding ${index + 1}: build log ${index + 1}`,
    "",
    `Module ${module} failed ${1 + (index % 4)} of 40 runs on arm64 with a timeout after 30 s; the rerun passed.`,
    `The failing test waits on a task token that the fake clock never releases when run ${index + 1} is retried.`,
    `Retry budget: SDK retries x state retries = ${(index % 3) + 2} x 3; the job log shows ${(index * 7) % 23} throttling errors.`,
    `Cold start of the VerifyAndReason bundle took ${180 + ((index * 13) % 90)} ms; warm invocations ${12 + (index % 9)} ms.`,
    `Suspected cause: shared fixture state between parallel workers; candidate fix: one table per test file.`,
    `Related files: lib/local/${module?.replace("/", "-")}.ts, test/e2e/${module?.split("/")[1]}.test.ts, logs/run-${index + 1}.txt.`,
  ];
  return lines.join("\n");
}

/**
 * The long ReAct goal: `iterations` reason turns, each with a few sentences of reasoning and a
 * workspace_write of report.md with the next finding (a new version of the file the check names:
 * progress every cycle), the last one the report that satisfies the check. Summaries for every compaction the budget may cause.
 */
export function longGoalFixture(iterations: number) {
  const reason = Array.from({ length: iterations }, (_, index) => {
    const last = index === iterations - 1;
    return {
      text: last
        ? "Every log is read; the report follows from the findings."
        : `Log ${index + 1} next. The previous findings point at timeouts on arm64 and shared fixture state; ` +
          "I will read this log for the same pattern and note anything new, with the module and the numbers.",
      toolUse: {
        name: "workspace_write",
        input: last
          ? {
              path: "report.md",
              content: `# Findings\n\n${iterations - 1} build logs read; each finding was drafted here in turn.`,
            }
          : { path: "report.md", content: finding(index) },
      },
    };
  });
  const summarize = Array.from({ length: Math.ceil(iterations / 4) }, (_, index) => ({
    text:
      `Through compaction ${index + 1}: read build logs one by one and wrote one finding per log to ` +
      "report.md, one draft per log. Recurring pattern: arm64 timeouts after 30 s in core/retry and api/routes, " +
      "caused by a task token the fake clock never releases on retries, and by shared fixture state between " +
      "parallel workers (candidate fix: one table per test file). Throttling errors grow with SDK x state " +
      "retries. Cold starts of VerifyAndReason 180-270 ms, warm 12-20 ms. Left: the remaining logs, then report.md.",
  }));
  return { reason, summarize };
}

export function longGoalSpec(iterations: number, fixture: string = FIXTURES.long) {
  return {
    objective: `Read the ${iterations - 1} build logs of last week's nightly runs, draft each finding into report.md, then sum them up there.`,
    scope: ["The workspace only: no notifications, no network."],
    successChecks: [
      {
        id: "report",
        description: "report.md sums up the build logs read",
        verify: { kind: "artifact" as const, path: "report.md", contains: "build logs read" },
      },
    ],
    constraints: ["One finding per log, with the module, the numbers and a suspected cause."],
    limits: { maxSteps: iterations + 20, maxCostUsd: 100, maxNoProgressCycles: 3 },
    pattern: "react" as const,
    models: { default: `scripted:${fixture}` },
  };
}

/** A short goal (five drafts of done.md, the last one completing it): throughput and transitions. */
function shortGoalFixture(iterations: number) {
  return {
    reason: Array.from({ length: iterations }, (_, index) => ({
      toolUse: {
        name: "workspace_write",
        input:
          index === iterations - 1
            ? { path: "done.md", content: "done" }
            : { path: "done.md", content: `step ${index}` },
      },
    })),
  };
}

export function shortGoalSpec() {
  return {
    objective: "Draft done.md a few times, then finish it",
    successChecks: [
      {
        id: "done",
        description: "done.md says done",
        verify: { kind: "artifact", path: "done.md", contains: "done" },
      },
    ],
    pattern: "react",
    models: { default: `scripted:${FIXTURES.short}` },
  };
}

/** One notify that needs a human approval, then done. */
function approvalGoalFixture() {
  return {
    reason: [{ toolUse: { name: "notify", input: { channel: "ops", message: "release 2.0 is out" } } }],
  };
}

export function approvalGoalSpec() {
  return {
    objective: "Tell ops that release 2.0 is out",
    successChecks: [
      {
        id: "ops-told",
        description: "notify succeeded",
        verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
      },
    ],
    tools: ["notify"],
    pattern: "react",
    models: { default: `scripted:${FIXTURES.approval}` },
  };
}

/** The large-payload goal's file: larger than the goal store keeps inline (64 KiB by default). */
export const LARGE_FILE = { path: "large.md", bytes: 600 * 1024, end: "End of the large file." } as const;

/** LARGE_FILE's content: numbered lines of plain text, LARGE_FILE.end the last line. */
function largeFileContent(): string {
  const tail = `\n${LARGE_FILE.end}\n`;
  const lines: string[] = [];
  let bytes = tail.length;
  for (let index = 0; bytes < LARGE_FILE.bytes; index += 1) {
    const line = `Line ${index + 1}: build log excerpt, module ${MODULES[index % MODULES.length]}, run ${index % 40}.\n`;
    lines.push(line);
    bytes += line.length;
  }
  return `${lines.join("")}${tail}`.slice(-LARGE_FILE.bytes);
}

/** One workspace_write of LARGE_FILE, which completes the goal. */
function largePayloadFixture() {
  return {
    reason: [
      {
        text: "The whole log goes into one file.",
        toolUse: { name: "workspace_write", input: { path: LARGE_FILE.path, content: largeFileContent() } },
      },
    ],
  };
}

export function largePayloadGoalSpec() {
  return {
    objective: `Write the whole build log into ${LARGE_FILE.path}`,
    successChecks: [
      {
        id: "large",
        description: `${LARGE_FILE.path} holds the whole log`,
        verify: { kind: "artifact", path: LARGE_FILE.path, contains: LARGE_FILE.end },
      },
    ],
    pattern: "react",
    models: { default: `scripted:${FIXTURES.largePayload}` },
  };
}

export interface FixtureSizes {
  readonly longIterations: number;
  readonly overheadIterations: number;
  readonly shortIterations: number;
}

export function writeFixtures(dir: string, sizes: FixtureSizes): void {
  const files: Record<string, unknown> = {
    [FIXTURES.long]: longGoalFixture(sizes.longIterations),
    [FIXTURES.overhead]: longGoalFixture(sizes.overheadIterations),
    [FIXTURES.short]: shortGoalFixture(sizes.shortIterations),
    [FIXTURES.approval]: approvalGoalFixture(),
    [FIXTURES.largePayload]: largePayloadFixture(),
  };
  for (const [name, fixture] of Object.entries(files)) {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(fixture));
  }
}
