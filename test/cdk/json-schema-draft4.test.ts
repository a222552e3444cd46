import { describe, expect, it } from "vitest";
import { goalSpecJsonSchema } from "../../lambdas/core/goal/goal-spec";
import {
  JSON_SCHEMA_DRAFT4,
  type JsonSchemaObject,
  toJsonSchemaDraft4,
} from "../../lib/constructs/json-schema-draft4";

/** Every keyword JSON Schema draft 4 defines (API Gateway models accept no other). */
const DRAFT4_KEYWORDS = new Set([
  "$schema",
  "type",
  "enum",
  "required",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "title",
  "description",
  "default",
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "additionalItems",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "dependencies",
]);

/** Keywords found in schema positions (not property names, not `enum` or `default` values). */
function keywordsOf(schema: unknown, found = new Set<string>()): Set<string> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return found;
  for (const [keyword, value] of Object.entries(schema)) {
    found.add(keyword);
    if (keyword === "properties" || keyword === "patternProperties" || keyword === "dependencies") {
      for (const child of Object.values(Object(value))) keywordsOf(child, found);
    } else if (["items", "allOf", "anyOf", "oneOf"].includes(keyword) && Array.isArray(value)) {
      for (const child of value) keywordsOf(child, found);
    } else if (["items", "additionalProperties", "additionalItems", "not"].includes(keyword)) {
      keywordsOf(value, found);
    }
  }
  return found;
}

function at(schema: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (typeof node === "object" && node !== null ? Reflect.get(node, key) : undefined),
    schema,
  );
}

describe("toJsonSchemaDraft4 on the GoalSpec schema", () => {
  // Prepare + Act
  const converted = toJsonSchemaDraft4(goalSpecJsonSchema());

  it("declares draft 4 and uses only draft-4 keywords", () => {
    // Assess
    expect(converted.$schema).toBe(JSON_SCHEMA_DRAFT4);
    expect([...keywordsOf(converted)].filter((keyword) => !DRAFT4_KEYWORDS.has(keyword))).toEqual([]);
  });

  it("turns each verify kind's const into a one-value enum", () => {
    // Act
    const variants = at(converted, "properties", "successChecks", "items", "properties", "verify", "oneOf");
    const kinds = (Array.isArray(variants) ? variants : []).map((variant) =>
      at(variant, "properties", "kind", "enum"),
    );

    // Assess
    expect(kinds).toEqual([["artifact"], ["tool_result"], ["approval"], ["model_judge"]]);
  });

  it("keeps a property named like a later keyword (the artifact check's `contains`)", () => {
    // Act
    const artifact = at(
      converted,
      "properties",
      "successChecks",
      "items",
      "properties",
      "verify",
      "oneOf",
      "0",
    );

    // Assess
    expect(at(artifact, "properties", "contains")).toEqual({ type: "string", minLength: 1 });
  });

  it("turns maxCostUsd's numeric exclusive minimum into draft 4's minimum plus flag", () => {
    // Assess
    expect(at(converted, "properties", "limits", "properties", "maxCostUsd")).toEqual({
      default: 1,
      type: "number",
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 10000,
    });
  });

  it("inlines the recursive JSON value definition, accepting any value where it recurses", () => {
    // Act
    const equals = at(
      converted,
      "properties",
      "successChecks",
      "items",
      "properties",
      "verify",
      "oneOf",
      "1",
    );
    const json = at(equals, "properties", "expect", "properties", "equals");

    // Assess
    expect(json).toEqual({
      anyOf: [
        { type: "string" },
        { type: "number" },
        { type: "boolean" },
        { type: "null" },
        { type: "array", items: {} },
        { type: "object", additionalProperties: {} },
      ],
    });
    expect(JSON.stringify(converted)).not.toContain("$ref");
  });
});

describe("toJsonSchemaDraft4", () => {
  it.each<[string, JsonSchemaObject, JsonSchemaObject]>([
    [
      "a tighter inclusive minimum",
      { type: "number", minimum: 5, exclusiveMinimum: 0 },
      { type: "number", minimum: 5 },
    ],
    [
      "a numeric exclusive maximum",
      { type: "number", maximum: 10, exclusiveMaximum: 3 },
      { type: "number", maximum: 3, exclusiveMaximum: true },
    ],
    [
      "a draft-4 boolean exclusive minimum",
      { minimum: 1, exclusiveMinimum: true },
      { minimum: 1, exclusiveMinimum: true },
    ],
    [
      "prefixItems with rest items",
      { type: "array", prefixItems: [{ type: "string" }, true], items: { type: "number" } },
      { type: "array", items: [{ type: "string" }, {}], additionalItems: { type: "number" } },
    ],
    [
      "prefixItems with no rest",
      { prefixItems: [{ type: "string" }], items: false },
      { items: [{ type: "string" }], additionalItems: false },
    ],
    ["a false subschema", { not: false }, { not: { not: {} } }],
    [
      "dropped later keywords",
      { type: "object", propertyNames: { pattern: "^a" }, examples: [{}] },
      { type: "object" },
    ],
    [
      "a reference with sibling keywords",
      { $defs: { id: { type: "string" } }, properties: { a: { $ref: "#/$defs/id", description: "A" } } },
      { properties: { a: { allOf: [{ type: "string" }, { description: "A" }] } } },
    ],
  ])("converts %s", (_case, schema, expected) => {
    // Act
    const converted = toJsonSchemaDraft4(schema);

    // Assess
    expect(converted).toEqual({ $schema: JSON_SCHEMA_DRAFT4, ...expected });
  });

  it.each<[string, JsonSchemaObject, RegExp]>([
    ["an unknown keyword", { type: "string", $dynamicRef: "#x" }, /\$dynamicRef/],
    ["a remote reference", { $ref: "https://example.com/schema.json" }, /local references/],
    ["a reference to a missing definition", { $ref: "#/$defs/missing" }, /local references/],
  ])("rejects %s", (_case, schema, message) => {
    // Act + Assess
    expect(() => toJsonSchemaDraft4(schema)).toThrow(message);
  });
});
