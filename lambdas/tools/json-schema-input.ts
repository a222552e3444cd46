import { dereference, type OutputUnit, type Schema, type SchemaDraft, validate } from "@cfworker/json-schema";
import { ValidationError, type ValidationIssue } from "../core/goal/errors";
import type { JsonObject } from "./built-in-tool";

/**
 * Checks one call's input against a user tool's JSON Schema (a Lambda tool's from the
 * configuration, an MCP tool's from its server) and answers the input the tool gets, or throws a
 * ValidationError naming each bad field. Built once per tool, on its first call.
 */
export type ToolInputCheck = (input: unknown) => JsonObject;

/**
 * The check of a user tool's input, by @cfworker/json-schema: a validator that interprets the
 * schema (no code generation) and bundles to about 22 KB, where classic zod's `z.fromJSONSchema`
 * pulled all of classic zod (about 80 KB more) into every acting function. Like that conversion it
 * fills in a missing property's `default` before checking, so a tool gets the input it got before;
 * a schema it cannot read (an unresolvable `$ref`) lets any JSON object through, the tool itself
 * being the judge of its input then.
 */
export function toolInputCheck(inputSchema: Record<string, unknown>, tool: string): ToolInputCheck {
  // The validator marks the schema it is given (non-enumerable URIs); the tool's own stays as it is.
  const schema = structuredClone(inputSchema) as Schema;
  const draft = draftOf(schema);
  let lookup: SchemaLookup | undefined;
  try {
    lookup = dereference(schema);
  } catch {
    lookup = undefined;
  }
  return (input) => {
    const value = withDefaults(schema, input);
    const verdict = validateOrSkip(schema, draft, lookup, value);
    if (verdict === "unreadable" || verdict.valid) {
      if (isJsonObject(value)) return value;
      throw invalidInput(tool, [{ path: "", message: `expected an object, received ${typeName(value)}` }]);
    }
    throw invalidInput(tool, issuesOf(verdict.errors, schema, verdict.lookup));
  };
}

/** The schemas a schema's `$ref`s resolve to, by absolute URI (what `dereference` answers). */
type SchemaLookup = Record<string, Schema | boolean>;

function validateOrSkip(
  schema: Schema,
  draft: SchemaDraft,
  lookup: SchemaLookup | undefined,
  value: unknown,
): { valid: boolean; errors: OutputUnit[]; lookup: SchemaLookup } | "unreadable" {
  if (lookup === undefined) return "unreadable";
  try {
    // Not short-circuited: every bad field is reported, not only the first.
    return { ...validate(value, schema, draft, lookup, false), lookup };
  } catch {
    // An unresolved `$ref` surfaces only here, when the check reaches it.
    return "unreadable";
  }
}

function invalidInput(tool: string, issues: readonly ValidationIssue[]): ValidationError {
  const summary = issues.map((issue) => `${issue.path || "(root)"}: ${issue.message}`).join("; ");
  return new ValidationError(`Invalid input for tool '${tool}': ${summary}`, issues);
}

/** The dialect the schema declares (MCP servers stamp draft-07 or 2020-12); 2020-12 when it names none. */
function draftOf(schema: Schema): SchemaDraft {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  if (dialect.includes("draft-04")) return "4";
  if (dialect.includes("draft-06") || dialect.includes("draft-07")) return "7";
  if (dialect.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/**
 * Errors that only say "a part below failed" (the part's own error follows them) and the errors
 * inside an `anyOf`/`oneOf` (each alternative's failures: the summary says more than all of them).
 */
const SUMMARY_KEYWORDS = new Set([
  "$ref",
  "$recursiveRef",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "allOf",
  "dependentSchemas",
  "dependencies",
]);

/** The validator's errors as one issue per bad field, each with the field's own dotted path. */
function issuesOf(errors: readonly OutputUnit[], schema: Schema, lookup: SchemaLookup): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const alternatives: string[] = [];
  let previous: OutputUnit | undefined;
  for (const error of errors) {
    const parent = previous;
    previous = error;
    if (alternatives.some((location) => error.keywordLocation.startsWith(`${location}/`))) continue;
    if (error.keyword === "anyOf" || error.keyword === "oneOf") alternatives.push(error.keywordLocation);
    if (SUMMARY_KEYWORDS.has(error.keyword)) continue;
    const path = pathOf(error.instanceLocation);
    const issue = issueOf(error, path, parent, schema, lookup);
    if (!issues.some((seen) => seen.path === issue.path && seen.message === issue.message))
      issues.push(issue);
  }
  return issues;
}

function issueOf(
  error: OutputUnit,
  path: string[],
  parent: OutputUnit | undefined,
  schema: Schema,
  lookup: SchemaLookup,
): ValidationIssue {
  const dotted = path.join(".");
  switch (error.keyword) {
    case "required": {
      // Named on the missing field itself, not on the object that lacks it.
      const key = /"(.*)"/.exec(error.error)?.[1] ?? "";
      return { path: [...path, key].join("."), message: "required field missing" };
    }
    case "false":
      return {
        path: dotted,
        message:
          parent?.keyword === "additionalProperties" || parent?.keyword === "unevaluatedProperties"
            ? "unknown field"
            : "not allowed here",
      };
    case "pattern": {
      const pattern = keywordValue(error.keywordLocation, schema, lookup);
      return {
        path: dotted,
        message: typeof pattern === "string" ? `must match pattern ${pattern}` : error.error,
      };
    }
    default:
      return { path: dotted, message: error.error };
  }
}

/** `#/a/0/b~1c` → `["a", "0", "b/c"]`. */
function pathOf(pointer: string): string[] {
  return pointer
    .replace(/^#\/?/, "")
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value of the keyword an error points at, following `$ref`s as the validator did. */
function keywordValue(keywordLocation: string, schema: Schema, lookup: SchemaLookup): unknown {
  let node: unknown = schema;
  for (const segment of pathOf(keywordLocation)) {
    if (typeof node !== "object" || node === null) return undefined;
    if (segment === "$ref") {
      const ref = (node as { __absolute_ref__?: string; $ref?: string }).__absolute_ref__;
      node = ref === undefined ? undefined : lookup[ref];
    } else {
      node = (node as Record<string, unknown>)[segment];
    }
  }
  return node;
}

/**
 * The input with each missing property's `default` filled in (nested objects and array items too),
 * as classic zod's conversion of the schema did before this check replaced it; the input itself is
 * not changed.
 */
function withDefaults(schema: unknown, value: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return value;
  const { properties, items } = schema as { properties?: unknown; items?: unknown };
  if (Array.isArray(value)) {
    return typeof items === "object" && items !== null && !Array.isArray(items)
      ? value.map((item) => withDefaults(items, item))
      : value;
  }
  if (!isJsonObject(value) || typeof properties !== "object" || properties === null) return value;
  const filled: Record<string, unknown> = { ...value };
  for (const [key, property] of Object.entries(properties)) {
    if (typeof property !== "object" || property === null) continue;
    if (Object.hasOwn(filled, key)) setOwn(filled, key, withDefaults(property, filled[key]));
    else if ("default" in property) setOwn(filled, key, structuredClone(property.default));
  }
  return filled;
}

/** Sets an own property, even one named `__proto__` (an assignment would set the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}
