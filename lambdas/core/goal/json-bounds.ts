import { ValidationError } from "./errors";
import { clip } from "./text";
import { formatIssuePath } from "./validation";

/**
 * How deep a GoalSpec, a revision or any other JSON body a door takes may nest. A real GoalSpec
 * needs about six levels above a `tool_result` check's `expect.equals`; the limit leaves that value
 * room and stops input that would exhaust the stack of a recursive parser (zod's overflows near
 * 8,000 levels, `JSON.stringify` earlier still) long before it gets there.
 */
export const MAX_JSON_DEPTH = 64;

/** The largest GoalSpec, as UTF-8 JSON: every field at its own maximum fits well inside. */
export const MAX_GOAL_SPEC_BYTES = 256 * 1024;

/** Both limits a JSON value is checked against. */
export interface JsonBounds {
  readonly maxDepth: number;
  readonly maxBytes: number;
}

export const GOAL_SPEC_BOUNDS: JsonBounds = { maxDepth: MAX_JSON_DEPTH, maxBytes: MAX_GOAL_SPEC_BYTES };

/**
 * A revision travels as one EventBridge event, and PutEvents takes at most 256 KB an entry: the
 * limit leaves room for the envelope, so a revision too big for the bus is a 400, not a retry.
 */
export const REVISION_BOUNDS: JsonBounds = { maxDepth: MAX_JSON_DEPTH, maxBytes: 192 * 1024 };

/** Path segments shown in an issue: enough to find the deep field, not the whole hostile input. */
const SHOWN_SEGMENTS = 6;
const SHOWN_KEY_LENGTH = 40;

/**
 * The path of the first array or object that nests deeper than `maxDepth` (the root container is
 * level 1), or undefined when none does. Iterative on purpose: this check exists because recursive
 * walks overflow the stack on input deep enough.
 */
export function pathPastDepth(value: unknown, maxDepth: number): readonly (string | number)[] | undefined {
  const pending: { value: unknown; depth: number; path: readonly (string | number)[] }[] = [
    { value, depth: 1, path: [] },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue;
    if (next.depth > maxDepth) return next.path;
    const entries: [string | number, unknown][] = Array.isArray(next.value)
      ? next.value.map((item, index) => [index, item])
      : Object.entries(next.value);
    for (const [key, child] of entries) {
      pending.push({ value: child, depth: next.depth + 1, path: [...next.path, key] });
    }
  }
  return undefined;
}

/** The size of `value` as UTF-8 JSON, in bytes. Only for values already known not to nest too deep. */
export function jsonByteLength(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : new TextEncoder().encode(text).length;
}

/** Throws a ValidationError naming the limit when `value` nests deeper than `maxDepth`. */
export function assertJsonDepth(value: unknown, what: string, maxDepth: number): void {
  const deep = pathPastDepth(value, maxDepth);
  if (deep === undefined) return;
  const path = shownPath(deep);
  const message = `nests deeper than ${maxDepth} levels, the limit of a ${what}`;
  throw new ValidationError(`Invalid ${what}: ${path || "(root)"}: ${message}`, [{ path, message }]);
}

/**
 * Throws a ValidationError naming the limit when `value` nests deeper than `bounds.maxDepth` or is
 * larger than `bounds.maxBytes` as JSON. Depth is checked first: measuring the size of a value
 * serializes it, which is itself recursive.
 */
export function assertWithinJsonBounds(value: unknown, what: string, bounds: JsonBounds): void {
  assertJsonDepth(value, what, bounds.maxDepth);
  const bytes = jsonByteLength(value);
  if (bytes > bounds.maxBytes) {
    const message = `is ${bytes} bytes of JSON; the limit of a ${what} is ${bounds.maxBytes} bytes`;
    throw new ValidationError(`Invalid ${what}: ${message}`, [{ path: "", message }]);
  }
}

function shownPath(path: readonly (string | number)[]): string {
  const shown = path
    .slice(0, SHOWN_SEGMENTS)
    .map((segment) => (typeof segment === "string" ? clip(segment, SHOWN_KEY_LENGTH) : segment));
  return formatIssuePath(path.length > SHOWN_SEGMENTS ? [...shown, "…"] : shown);
}
