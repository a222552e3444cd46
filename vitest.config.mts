import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The store's contract suite boots DynamoDB Local (a JVM) once per file; give it room.
    hookTimeout: 60_000,
    testTimeout: 30_000,
    pool: "forks",
  },
});
