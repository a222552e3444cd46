import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // Synthesizes cdk.out once, before the end-to-end files start local stacks from it.
    globalSetup: ["./test/e2e/global-setup.ts"],
    env: {
      // The SDK warns on every worker that Node 20 support ends in 2027; the tests know.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      // The goal store publishes goal metrics as EMF lines on stdout; tests that check them turn it on.
      POWERTOOLS_METRICS_DISABLED: "true",
    },
    // The store's contract suite boots DynamoDB Local (a JVM) once per file; give it room.
    hookTimeout: 60_000,
    testTimeout: 30_000,
    pool: "forks",
    // Two files at a time even on 2 cores (vitest's default is cores - 1): the end-to-end files
    // mostly wait on their local stacks' child processes, so a second file fills that time.
    maxWorkers: 2,
  },
});
