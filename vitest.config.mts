import { defineConfig } from "vitest/config";

/**
 * The tests that need no build and no process of their own: the core's and the adapters' unit
 * tests and the layout's rules. They run in worker threads, which start faster than forked
 * processes, and without the global setup: `vitest run test/unit` starts at once.
 */
const UNIT_TESTS = ["test/unit/**/*.test.ts", "test/architecture/**/*.test.ts"];

/**
 * Unit files that need a module graph of their own: they import a handler whose module scope reads
 * process.env (its clients, its table), or stub environment variables that modules read once. The
 * other unit files share one module graph per thread (`isolate: false`), so zod, the SDK and the
 * core load once per thread instead of once per file: half the CPU of the unit tests.
 */
const FRESH_MODULE_TESTS = [
  "test/unit/loop/handlers.test.ts",
  "test/unit/patterns/reflexion/handlers.test.ts",
  "test/unit/api/goals-api-handler.test.ts",
  "test/unit/api/openapi-json.test.ts",
  "test/unit/adapters/notify-senders.test.ts",
  "test/unit/adapters/goal-metrics.test.ts",
  "test/unit/adapters/fault-injection.test.ts",
  "test/unit/adapters/bedrock-runtime-client.test.ts",
  "test/unit/adapters/xray-subsegments.test.ts",
  "test/unit/api/jwt-authorizer-handler.test.ts",
  // Stubs the AWS credential and config files' variables that the SDK's credential chain reads.
  "test/unit/mcp/mcp-command.test.ts",
];

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts"],
    env: {
      // The SDK warns on every worker that Node 20 support ends in 2027; the tests know.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      // The goal store publishes goal metrics as EMF lines on stdout; tests that check them turn it on.
      POWERTOOLS_METRICS_DISABLED: "true",
    },
    // The store's contract suites boot DynamoDB Local (a JVM) once per fork; give the first room.
    hookTimeout: 60_000,
    testTimeout: 30_000,
    // Two files at a time even on 2 cores (vitest's default is cores - 1), across the projects:
    // the end-to-end files mostly wait on their local stacks' child processes, so a second file
    // (often a unit file, in a thread) fills that time.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT_TESTS,
          exclude: FRESH_MODULE_TESTS,
          pool: "threads",
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: "unit-isolated", include: FRESH_MODULE_TESTS, pool: "threads" },
      },
      {
        extends: true,
        test: {
          name: "stack",
          include: ["test/**/*.test.ts"],
          exclude: UNIT_TESTS,
          // Local stacks, DynamoDB Local, CDK synths, a browser: in forked processes, not threads
          // (their children and ports outlive a thread's teardown). A fork runs file after file
          // without a fresh module graph (`isolate: false`): the harness, the local services and
          // the SDK load once per fork instead of once per file, about 2 s of CPU a file (measured
          // on 12 end-to-end files: 121 s of CPU shared, 148 s isolated). No file here may leave
          // process-wide state behind: the two that stub variables or fetch (api-fuzz,
          // console-proxy) put them back in `finally` and `afterAll`.
          pool: "forks",
          isolate: false,
          // Builds the bundles and synthesizes cdk.out once, before the files that deploy or run them.
          globalSetup: ["./test/e2e/global-setup.ts"],
        },
      },
    ],
  },
});
