/** The `$schema` of an API Gateway model: API Gateway validates with JSON Schema draft 4 only. */
export const JSON_SCHEMA_DRAFT4 = "http://json-schema.org/draft-04/schema#";

export type JsonSchemaObject = { [keyword: string]: unknown };

/** Draft-4 keywords whose value is data, not a schema: copied unchanged. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "enum",
  "required",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "title",
  "description",
  "default",
]);

/**
 * Later-draft keywords with no draft-4 counterpart, and `$defs` (references are inlined).
 * Dropping one only loosens the gateway's check: the handler's zod parse still applies the whole
 * schema, so a request the gateway lets through may still get a 400 with precise issues.
 */
const DROPPED_KEYWORDS: ReadonlySet<string> = new Set([
  "$schema",
  "$id",
  "$anchor",
  "$comment",
  "$defs",
  "definitions",
  "examples",
  "propertyNames",
  "contains",
  "minContains",
  "maxContains",
  "readOnly",
  "writeOnly",
  "deprecated",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "unevaluatedProperties",
  "unevaluatedItems",
  "dependentRequired",
  "dependentSchemas",
  "if",
  "then",
  "else",
]);

const LOCAL_REF = /^#\/(\$defs|definitions)\/([^/]+)$/;

/**
 * Converts a JSON Schema (draft 2020-12, as zod's `toJSONSchema` writes it) to the draft-4 dialect
 * API Gateway models accept: `const` becomes a one-value `enum`, numeric `exclusiveMinimum` /
 * `exclusiveMaximum` become draft 4's boolean flags, `prefixItems` becomes tuple `items`, local
 * `$ref`s are inlined (a recursive one becomes `{}`, any value, since API Gateway resolves no
 * local definitions), boolean schemas become `{}` / `{ not: {} }`, and the keywords in
 * DROPPED_KEYWORDS are left out. An unknown keyword throws, so a new zod feature cannot slip
 * through unconverted.
 */
export function toJsonSchemaDraft4(schema: JsonSchemaObject): JsonSchemaObject {
  const definitions = {
    ...asObjectOrEmpty(schema.definitions),
    ...asObjectOrEmpty(schema.$defs),
  };
  return { $schema: JSON_SCHEMA_DRAFT4, ...convert(schema, { definitions, resolving: [], path: "#" }) };
}

interface Context {
  readonly definitions: JsonSchemaObject;
  /** The definitions being inlined around this point: a reference to one of them recurses. */
  readonly resolving: readonly string[];
  /** Where in the source schema we are, for error messages. */
  readonly path: string;
}

function convert(schema: unknown, context: Context): JsonSchemaObject {
  if (schema === true) return {};
  if (schema === false) return { not: {} };
  if (!isObject(schema)) throw new Error(`toJsonSchemaDraft4: ${context.path} is not a schema`);

  const { $ref, ...rest } = schema;
  if ($ref !== undefined) {
    const target = resolveRef($ref, context);
    return Object.keys(rest).length === 0 ? target : { allOf: [target, convert(rest, context)] };
  }

  const out: JsonSchemaObject = {};
  for (const [keyword, value] of Object.entries(schema)) {
    const at = (suffix: string): Context => ({ ...context, path: `${context.path}/${suffix}` });
    if (DATA_KEYWORDS.has(keyword)) out[keyword] = value;
    else if (DROPPED_KEYWORDS.has(keyword)) continue;
    else if (keyword === "const") out.enum = [value];
    else if (keyword === "properties" || keyword === "patternProperties") {
      out[keyword] = mapValues(value, (child, name) => convert(child, at(`${keyword}/${name}`)));
    } else if (keyword === "additionalProperties" || keyword === "additionalItems") {
      out[keyword] = typeof value === "boolean" ? value : convert(value, at(keyword));
    } else if (keyword === "not") out.not = convert(value, at("not"));
    else if (keyword === "allOf" || keyword === "anyOf" || keyword === "oneOf") {
      out[keyword] = asArray(value, at(keyword)).map((child, index) =>
        convert(child, at(`${keyword}/${index}`)),
      );
    } else if (keyword === "items" || keyword === "prefixItems") {
      // Both go through one conversion, made once: at prefixItems when present, else at items.
      if (keyword === "prefixItems" || schema.prefixItems === undefined)
        Object.assign(out, convertItems(schema, context));
    } else if (keyword === "minimum" || keyword === "exclusiveMinimum") {
      Object.assign(out, convertBound(schema, "minimum", "exclusiveMinimum"));
    } else if (keyword === "maximum" || keyword === "exclusiveMaximum") {
      Object.assign(out, convertBound(schema, "maximum", "exclusiveMaximum"));
    } else if (keyword === "dependencies") {
      out.dependencies = mapValues(value, (child, name) =>
        Array.isArray(child) ? child : convert(child, at(`dependencies/${name}`)),
      );
    } else {
      throw new Error(
        `toJsonSchemaDraft4: keyword '${keyword}' at ${context.path} has no draft-4 conversion`,
      );
    }
  }
  return out;
}

function resolveRef(ref: unknown, context: Context): JsonSchemaObject {
  const name = typeof ref === "string" ? LOCAL_REF.exec(ref)?.[2] : undefined;
  if (name === undefined || !(name in context.definitions)) {
    throw new Error(
      `toJsonSchemaDraft4: only local references to definitions are supported; got '${String(ref)}'`,
    );
  }
  // A recursive definition cannot be inlined: accept any value there and leave it to the handler.
  if (context.resolving.includes(name)) return {};
  return convert(context.definitions[name], {
    ...context,
    resolving: [...context.resolving, name],
    path: `#/$defs/${name}`,
  });
}

/** 2020-12 `prefixItems` + `items` is draft 4's tuple `items` + `additionalItems`. */
function convertItems(schema: JsonSchemaObject, context: Context): JsonSchemaObject {
  const { prefixItems, items } = schema;
  const at = (suffix: string): Context => ({ ...context, path: `${context.path}/${suffix}` });
  if (prefixItems === undefined) {
    if (Array.isArray(items))
      return { items: items.map((child, index) => convert(child, at(`items/${index}`))) };
    return { items: convert(items, at("items")) };
  }
  const tuple = asArray(prefixItems, at("prefixItems")).map((child, index) =>
    convert(child, at(`prefixItems/${index}`)),
  );
  if (items === undefined) return { items: tuple };
  return { items: tuple, additionalItems: typeof items === "boolean" ? items : convert(items, at("items")) };
}

/**
 * A numeric exclusive bound (draft 6+) becomes draft 4's `minimum` + `exclusiveMinimum: true`
 * (or the maximum pair); when an inclusive bound is also given, the tighter of the two wins.
 */
function convertBound(
  schema: JsonSchemaObject,
  boundKeyword: "minimum" | "maximum",
  exclusiveKeyword: "exclusiveMinimum" | "exclusiveMaximum",
): JsonSchemaObject {
  const inclusive = schema[boundKeyword];
  const exclusive = schema[exclusiveKeyword];
  if (exclusive === undefined || typeof exclusive === "boolean") {
    const out: JsonSchemaObject = {};
    if (inclusive !== undefined) out[boundKeyword] = inclusive;
    if (exclusive !== undefined) out[exclusiveKeyword] = exclusive;
    return out;
  }
  if (typeof exclusive !== "number") {
    throw new Error(`toJsonSchemaDraft4: ${exclusiveKeyword} must be a number or a boolean`);
  }
  const inclusiveIsTighter =
    typeof inclusive === "number" &&
    (boundKeyword === "minimum" ? inclusive > exclusive : inclusive < exclusive);
  if (inclusiveIsTighter) return { [boundKeyword]: inclusive };
  return { [boundKeyword]: exclusive, [exclusiveKeyword]: true };
}

function mapValues(
  value: unknown,
  fn: (child: unknown, name: string) => unknown,
): { [name: string]: unknown } {
  if (!isObject(value)) throw new Error("toJsonSchemaDraft4: expected an object of schemas");
  return Object.fromEntries(Object.entries(value).map(([name, child]) => [name, fn(child, name)]));
}

function asArray(value: unknown, context: Context): readonly unknown[] {
  if (!Array.isArray(value)) throw new Error(`toJsonSchemaDraft4: ${context.path} must be an array`);
  return value;
}

function asObjectOrEmpty(value: unknown): JsonSchemaObject {
  return isObject(value) ? value : {};
}

function isObject(value: unknown): value is JsonSchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
