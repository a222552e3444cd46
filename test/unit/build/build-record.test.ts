import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withJsSpecifiers } from "../../../lib/build/build-library";
import { staleReason, writeBuildRecord } from "../../../lib/build/build-record";

describe("build records", () => {
  let projectDir: string;
  const record = () => path.join(projectDir, "dist", "build", "part.json");
  const write = (file: string, secondsAgo: number) => {
    const full = path.join(projectDir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, "//");
    const time = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(full, time, time);
  };

  beforeEach(() => {
    projectDir = mkdtempSync(path.join(tmpdir(), "goal-loops-build-"));
    write("lib/a.ts", 60);
    write("dist/a.js", 30);
    writeBuildRecord(record(), {
      builtAt: Date.now() - 30_000,
      inputs: ["lib/a.ts"],
      outputs: ["dist/a.js"],
    });
  });
  afterEach(() => rmSync(projectDir, { recursive: true, force: true }));

  it("find a part fresh while its outputs exist and no input changed since it was built", () => {
    expect(staleReason(projectDir, record())).toBeUndefined();
  });

  it("say why a part must be built again: never built, an input changed or gone, an output missing", () => {
    // Act
    const never = staleReason(projectDir, path.join(projectDir, "dist", "build", "other.json"));
    write("lib/a.ts", 1);
    const changed = staleReason(projectDir, record());
    rmSync(path.join(projectDir, "lib", "a.ts"));
    const gone = staleReason(projectDir, record());
    rmSync(path.join(projectDir, "dist", "a.js"));
    const missing = staleReason(projectDir, record());

    // Assess
    expect([never, changed, gone, missing]).toEqual([
      "never built",
      "lib/a.ts changed",
      "lib/a.ts is gone",
      "dist/a.js is missing",
    ]);
  });
});

describe("declaration specifiers", () => {
  it("name the .js file a node16 resolver expects: a module, or a folder's index", () => {
    // Prepare: the sources the declarations were emitted from
    const sourceDir = mkdtempSync(path.join(tmpdir(), "goal-loops-dts-"));
    mkdirSync(path.join(sourceDir, "config"));
    writeFileSync(path.join(sourceDir, "goal-loops.ts"), "");
    writeFileSync(path.join(sourceDir, "config", "index.ts"), "");
    const text = [
      'import { GoalLoops } from "./goal-loops";',
      'export * from "./config";',
      'export type X = import("../other/thing").Thing;',
      'import data from "./tiers.json";',
      'import { z } from "zod";',
    ].join("\n");

    // Act
    const rewritten = withJsSpecifiers(text, sourceDir);
    rmSync(sourceDir, { recursive: true, force: true });

    // Assess
    expect(rewritten.split("\n")).toEqual([
      'import { GoalLoops } from "./goal-loops.js";',
      'export * from "./config/index.js";',
      'export type X = import("../other/thing").Thing;',
      'import data from "./tiers.json";',
      'import { z } from "zod";',
    ]);
  });
});
