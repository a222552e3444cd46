import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { CloudAssemblyError } from "../shared/errors";
import { isJsonObject } from "../shared/json";

/**
 * EventBridge event patterns, the common part: exact values, `prefix`, `suffix`,
 * `equals-ignore-case`, `anything-but` (values or a prefix), `exists`, `numeric` and `$or`. Other
 * operators (`wildcard`, `cidr`) are refused when the rule is loaded rather than never matching.
 */
export function checkEventPattern(pattern: JsonObject, where: string): void {
  const visit = (node: JsonObject, path: string) => {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$or") {
        if (!Array.isArray(value))
          throw new CloudAssemblyError(`${where}: ${path}$or must be a list of patterns`);
        for (const branch of value) if (isJsonObject(branch)) visit(branch, path);
        continue;
      }
      if (isJsonObject(value)) visit(value, `${path}${key}.`);
      else if (Array.isArray(value)) {
        for (const matcher of value) {
          if (!isJsonObject(matcher)) continue;
          const operator = Object.keys(matcher)[0] ?? "";
          if (!OPERATORS.has(operator)) {
            throw new CloudAssemblyError(
              `${where}: event pattern operator '${operator}' at ${path}${key} is not supported locally (supported: ${[...OPERATORS].join(", ")})`,
            );
          }
        }
      } else {
        throw new CloudAssemblyError(
          `${where}: event pattern field ${path}${key} must be a list or an object`,
        );
      }
    }
  };
  visit(pattern, "");
}

const OPERATORS = new Set(["prefix", "suffix", "equals-ignore-case", "anything-but", "exists", "numeric"]);

export function matchesEventPattern(pattern: JsonObject, event: JsonValue | undefined): boolean {
  return Object.entries(pattern).every(([key, expected]) => {
    if (key === "$or")
      return (
        Array.isArray(expected) && expected.some((p) => isJsonObject(p) && matchesEventPattern(p, event))
      );
    const actual = isJsonObject(event) ? event[key] : undefined;
    if (isJsonObject(expected)) return actual !== undefined && matchesEventPattern(expected, actual);
    if (!Array.isArray(expected)) return false;
    return expected.some((matcher) => matchesField(matcher, actual));
  });
}

function matchesField(matcher: JsonValue, actual: JsonValue | undefined): boolean {
  if (isJsonObject(matcher) && "exists" in matcher) {
    const present = actual !== undefined && !(Array.isArray(actual) && actual.length === 0);
    return matcher.exists === present;
  }
  if (actual === undefined) return false;
  // An array field matches when any of its elements does.
  const values = Array.isArray(actual) ? actual : [actual];
  return values.some((value) => matchesValue(matcher, value));
}

function matchesValue(matcher: JsonValue, value: JsonValue): boolean {
  if (!isJsonObject(matcher)) return matcher === value;
  const [operator, argument] = Object.entries(matcher)[0] ?? [];
  switch (operator) {
    case "prefix":
      return typeof value === "string" && typeof argument === "string" && value.startsWith(argument);
    case "suffix":
      return typeof value === "string" && typeof argument === "string" && value.endsWith(argument);
    case "equals-ignore-case":
      return (
        typeof value === "string" &&
        typeof argument === "string" &&
        value.toLowerCase() === argument.toLowerCase()
      );
    case "anything-but": {
      if (isJsonObject(argument)) return !matchesValue(argument, value);
      const excluded = Array.isArray(argument) ? argument : [argument ?? null];
      return !excluded.includes(value);
    }
    case "numeric":
      return typeof value === "number" && Array.isArray(argument) && matchesNumeric(argument, value);
    default:
      return false;
  }
}

function matchesNumeric(conditions: JsonValue[], value: number): boolean {
  for (let i = 0; i + 1 < conditions.length; i += 2) {
    const [operator, bound] = [conditions[i], Number(conditions[i + 1])];
    const ok =
      operator === "="
        ? value === bound
        : operator === ">"
          ? value > bound
          : operator === ">="
            ? value >= bound
            : operator === "<"
              ? value < bound
              : operator === "<="
                ? value <= bound
                : false;
    if (!ok) return false;
  }
  return true;
}
