import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILT_IN_TOOLS } from "../../../lambdas/tools";
import { builtInToolInputSchemas } from "../../../lambdas/tools/tool-input-json-schema";

const GENERATED_FILE = join(import.meta.dirname, "../../../lambdas/tools/built-in-tool-input-schemas.json");

describe("built-in tools' input JSON Schemas", () => {
  it("are what the tools' zod schemas convert to (run `npm run tool-schemas` after changing a tool's input)", () => {
    // Act
    const generated: unknown = JSON.parse(readFileSync(GENERATED_FILE, "utf8"));

    // Assess
    expect(generated).toEqual(builtInToolInputSchemas());
  });

  it("are the ones the registry offers the model, one per built-in tool", () => {
    // Act
    const converted = builtInToolInputSchemas();

    // Assess
    expect(Object.keys(converted).sort()).toEqual(BUILT_IN_TOOLS.map((tool) => tool.name).sort());
    for (const tool of BUILT_IN_TOOLS) expect(tool.spec.inputSchema).toEqual(converted[tool.name]);
  });
});
