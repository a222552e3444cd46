import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { GoalSnapshot, GoalStatus } from "../../lambdas/core/goal/goal-record";
import { checkInvariants } from "../../lambdas/core/goal/invariants";
import type { ModelQuota } from "../../lambdas/core/models/capacity/model-quota";
import { openApiDocument } from "../../lambdas/handlers/api/contract/openapi-document";
import { GoalLoopsClient } from "../../lib/client/index";
import { type ContractViolation, openApiResponseChecker } from "../../lib/local/api/openapi-response-check";
import { type LocalStack, startLocalStack } from "../../lib/local/local-stack";
import type { LocalSecrets } from "../../lib/local/storage/local-secrets";
import { assertNoViolations } from "./contract-checking-fetch";

export const PROJECT_DIR = resolve(import.meta.dirname, "../..");
/**
 * The configuration the end-to-end files share (Lambda and MCP tools, notify channels, approver
 * lists), synthesized once by global setup into E2E_ASSEMBLY_DIR: one synth, not one per file. Its
 * `api.auth.mode` is iam+jwt, two REST APIs with the same routes, so every file also checks that
 * the local API serves them once (the local issuer signs the bearer tokens, whatever api.auth.jwt says).
 */
export const E2E_CONFIG = join(PROJECT_DIR, "test", "e2e", "config", "goal-loops.e2e.config.json");
export const E2E_ASSEMBLY_DIR = join(PROJECT_DIR, "cdk.out", "e2e-config");
/** Where E2E_CONFIG expects server-everything (its default port) and the notify webhook receiver. */
export const E2E_MCP_PORT = 3001;
export const E2E_WEBHOOK_PORT = 3002;

/** A file's local stack: one of its own (startE2eStack), or its lease on the process's shared one (sharedE2eStack). */
export interface E2eStack {
  readonly stack: LocalStack;
  readonly client: GoalLoopsClient;
  readonly fixturesDir: string;
  /**
   * Every line the runtime and the functions logged so far, while this file held the stack
   * (checked for secrets that must not leak).
   */
  readonly logLines: readonly string[];
  /** Answers the OpenAPI document does not describe, so far, in this file; stop() fails when there are any. */
  readonly contractViolations: readonly ContractViolation[];
  /** Writes one more fixture file `<name>.json` for `scripted:<name>`. */
  writeFixture(name: string, fixture: unknown): void;
  /** Stops a stack of the file's own, or ends a lease on the shared one (which keeps running). */
  stop(): Promise<void>;
}

/** What a test may ask of its local stack; every option makes a stack of the file's own (see startE2eStack). */
export interface E2eStackOptions {
  continueAsNewAfter?: number;
  secrets?: LocalSecrets;
  /** Keep DynamoDB in this folder (not in memory), its fixtures in `<stateDir>/fixtures`; stop() leaves both. */
  stateDir?: string;
  /** More variables for every function (e.g. GOAL_LOOPS_FAULT_INJECTION), over their own. */
  environment?: Record<string, string>;
  /** The API's port; by default any free one. */
  port?: number;
  /** Makes `notify` send to these fakes instead of recording in the outbox (LocalStackOptions). */
  notifyEndpoints?: { slackApiUrl: string; sesv2: string };
  /**
   * Synthesize from this configuration file (`npm start -- --config`) into a cloud assembly of
   * this run's own, instead of using the project's cdk.out.
   */
  configFile?: string;
  /**
   * Run the assembly global setup synthesized from E2E_CONFIG (every user tool, notify channel
   * and approver list the end-to-end files need, in one synth) instead of the project's cdk.out.
   */
  e2eConfig?: boolean;
  /** The account's Bedrock quota for every model (`npm start -- --model-quota`). */
  modelQuota?: ModelQuota;
  /** Run this cloud assembly as it is (`npm start -- --app <cdk.out>`), instead of the project's. */
  cdkOutDir?: string;
  /** Point new goals back at an older kept version (`npm start -- --rollback`). */
  rollback?: { to?: number };
}

/**
 * A local stack of the file's own, as a user runs it (`npm start`): the real cdk.out, the API on
 * 127.0.0.1, dynalite in memory. Fixtures are the examples' plus the end-to-end ones, copied to a
 * folder of this run's own. stop() stops it. A file that needs no option and does not depend on
 * being alone on its stack leases the process's shared one instead (sharedE2eStack): its Lambda
 * sandboxes are warm from the files before.
 */
export async function startE2eStack(options: E2eStackOptions = {}): Promise<E2eStack> {
  const logLines: string[] = [];
  const violations: ContractViolation[] = [];
  const launched = await launchE2eStack(options, {
    log: (line) => logLines.push(line),
    violation: (violation) => violations.push(violation),
  });
  const { stack, fixturesDir } = launched;
  return {
    stack,
    client: new GoalLoopsClient(stack.apiUrl),
    fixturesDir,
    logLines,
    writeFixture: (name, fixture) => writeFixtureFile(fixturesDir, name, fixture),
    contractViolations: violations,
    stop: async () => {
      await stack.stop();
      try {
        assertNoViolations(violations);
      } finally {
        launched.removeFiles();
      }
    },
  };
}

/** Where a stack sends what the end-to-end checks read: its log lines and its answers off the OpenAPI document. */
export interface E2eSinks {
  log(line: string): void;
  violation(violation: ContractViolation): void;
}

export interface LaunchedE2eStack {
  readonly stack: LocalStack;
  readonly fixturesDir: string;
  /** Removes the fixtures folder and the assembly the launch made (a stateDir's are left); after stack.stop(). */
  removeFiles(): void;
}

/** Starts a local stack for the end-to-end files with `options`, sending its log lines and contract violations to `sinks`. */
export async function launchE2eStack(options: E2eStackOptions, sinks: E2eSinks): Promise<LaunchedE2eStack> {
  const { stateDir } = options;
  const fixturesDir =
    stateDir === undefined ? mkdtempSync(join(tmpdir(), "goal-loops-e2e-")) : join(stateDir, "fixtures");
  mkdirSync(fixturesDir, { recursive: true });
  for (const source of [join(PROJECT_DIR, "examples", "fixtures"), join(import.meta.dirname, "fixtures")]) {
    for (const file of readdirSync(source)) cpSync(join(source, file), join(fixturesDir, file));
  }
  // Every answer of every end-to-end test is checked against the OpenAPI document the API serves.
  const checkAnswer = openApiResponseChecker(openApiDocument());
  const ownAssembly = options.configFile === undefined ? undefined : ownAssemblyDir();
  const stack = await startLocalStack({
    projectDir: PROJECT_DIR,
    ...(options.configFile !== undefined
      ? { synth: true, configFile: options.configFile, cdkOutDir: ownAssembly }
      : options.e2eConfig
        ? { synth: false, cdkOutDir: E2E_ASSEMBLY_DIR }
        : options.cdkOutDir !== undefined
          ? { synth: false, cdkOutDir: options.cdkOutDir }
          : { synth: false }),
    ...(options.rollback === undefined ? {} : { rollback: options.rollback }),
    port: options.port ?? 0,
    fixturesDir,
    ...(stateDir === undefined ? { inMemory: true } : { stateDir }),
    log: sinks.log,
    onApiResponse: (answer) => {
      const violation = checkAnswer(answer);
      if (violation !== undefined) sinks.violation(violation);
    },
    functionLog: (_name, line) => sinks.log(line),
    ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
    ...(options.notifyEndpoints === undefined ? {} : { notifyEndpoints: options.notifyEndpoints }),
    ...(options.modelQuota === undefined ? {} : { modelQuota: options.modelQuota }),
    environment: {
      ...options.environment,
      ...(options.continueAsNewAfter === undefined
        ? {}
        : { CONTINUE_AS_NEW_AFTER: String(options.continueAsNewAfter) }),
    },
  });
  return {
    stack,
    fixturesDir,
    removeFiles: () => {
      if (stateDir === undefined) rmSync(fixturesDir, { recursive: true, force: true });
      if (ownAssembly !== undefined) rmSync(ownAssembly, { recursive: true, force: true });
    },
  };
}

/** Writes `<fixturesDir>/<name>.json`, the fixture `scripted:<name>` answers with. */
export function writeFixtureFile(fixturesDir: string, name: string, fixture: unknown): void {
  writeFileSync(join(fixturesDir, `${name}.json`), JSON.stringify(fixture));
}

/**
 * A folder of its own for one synthesis, inside cdk.out: within the project, so the bundles'
 * `require("@aws-sdk/…")` finds the project's node_modules as the functions' runtime would.
 */
function ownAssemblyDir(): string {
  const parent = join(PROJECT_DIR, "cdk.out");
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, "e2e-"));
}

const SETTLED: ReadonlySet<GoalStatus> = new Set([
  "completed",
  "paused",
  "failed",
  "terminated",
  "cancelled",
  "waiting",
]);

/**
 * Polls a goal until it settles (or the deadline passes) and checks the DESIGN §4 invariants on
 * every snapshot seen on the way. Returns the settled snapshot and every snapshot observed.
 */
export async function followGoal(
  client: GoalLoopsClient,
  goalId: string,
  options: { deadlineMs?: number; pollMs?: number } = {},
): Promise<{ final: GoalSnapshot; seen: readonly GoalSnapshot[] }> {
  const deadline = Date.now() + (options.deadlineMs ?? 60_000);
  const seen: GoalSnapshot[] = [];
  for (;;) {
    const snapshot = await client.getGoal(goalId);
    seen.push(snapshot);
    const broken = checkInvariants(snapshot);
    if (broken.length > 0) throw new Error(`Snapshot of ${goalId} breaks invariants: ${broken.join("; ")}`);
    if (SETTLED.has(snapshot.status)) return { final: snapshot, seen };
    if (Date.now() > deadline) {
      throw new Error(`Goal ${goalId} still ${snapshot.status} after ${options.deadlineMs ?? 60_000} ms`);
    }
    await new Promise((resolveDelay) => setTimeout(resolveDelay, options.pollMs ?? 100));
  }
}

/** Every event of a goal, following `nextSeq` pages. */
export async function allEvents(client: GoalLoopsClient, goalId: string) {
  const items = [];
  let after = 0;
  for (;;) {
    const page = await client.listEvents(goalId, after);
    items.push(...page.items);
    if (page.items.length === 0 || page.nextSeq === after) return items;
    after = page.nextSeq;
  }
}

/** A TCP port nothing listens on right now (the OS picks it), for a stack whose URL must be known before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const address = server.address();
  await new Promise((resolveClose) => server.close(resolveClose));
  if (address === null || typeof address === "string") throw new Error("no TCP port was assigned");
  return address.port;
}
