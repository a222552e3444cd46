import path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { handlerBuildOptions } from "../../../lib/build/build-handlers";

const projectDir = path.join(import.meta.dirname, "..", "..", "..");

describe("handlerBuildOptions", () => {
  it("gives middy a stand-in for node:stream/web, so a step's cold start does not load Node's web streams", async () => {
    // Prepare
    const outfile = path.join(projectDir, "dist", "test-only", "load-goal.mjs");

    // Act
    const result = await build(handlerBuildOptions(projectDir, "load-goal", outfile));

    // Assess
    const code = result.outputFiles[0]?.text ?? "";
    expect(code).toContain("instanceof globalThis.ReadableStream");
    expect(code).not.toMatch(/from\s*"node:stream\/web"/);
    expect(Object.keys(result.metafile.inputs)).toContain("lib/build/shims/readable-stream-instanceof.mjs");
  });
});
