import * as z from "zod";

/** A setting that failed validation; the message names each bad field by its path and what it got. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** A whole number from `min` to `max`, with one message that says all of it. */
export function wholeNumber({ min, max }: { readonly min: number; readonly max: number }, unit: string) {
  const expected = `must be a whole number of ${unit} from ${min} to ${max}`;
  return z
    .number({ error: expected })
    .int({ error: expected })
    .min(min, { error: expected })
    .max(max, { error: expected });
}

/**
 * `value` parsed by `schema`, or a ConfigError naming each bad field by its path under `path`
 * (`payloads.inlineMaxBytes`), what it expected and what it got. `where` names what the value was
 * given to (a construct, or the configuration file).
 */
export function parseSettings<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  where: string,
  path = "",
): z.output<S> {
  const result = z.safeParse(schema, value ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      const known = knownKeys(schema, issue.path);
      return issue.keys.map(
        (key) =>
          `${fieldPath(path, [...issue.path, key])} is not a setting${known ? `; known: ${known}` : ""}`,
      );
    }
    if (issue.code === "invalid_key") {
      // A record's key that its key schema refuses: name the key and why, not the value under it.
      const key = issue.path.at(-1);
      const why = issue.issues.map((inner) => inner.message).join("; ");
      return [`${fieldPath(path, issue.path.slice(0, -1)) || "(root)"} key '${String(key)}' ${why}`];
    }
    if (issue.path.length === 0 && issue.code === "invalid_type") {
      return [`${path || "the settings"} must be an object; got ${shown(value)}`];
    }
    return [
      `${fieldPath(path, issue.path) || "(root)"} ${issue.message}; got ${shown(valueAt(value, issue.path))}`,
    ];
  });
  throw new ConfigError(`${where}: ${problems.join("; ")}`);
}

/**
 * The keys an object schema at `path` knows, for a misspelt one. By zod's core classes, which the
 * classic schemas of lib/ and the zod/mini schemas of lambdas/ share.
 */
function knownKeys(schema: z.core.$ZodType, path: readonly PropertyKey[]): string | undefined {
  let node: unknown = schema;
  for (const key of [...path, undefined]) {
    while (
      node instanceof z.core.$ZodDefault ||
      node instanceof z.core.$ZodOptional ||
      node instanceof z.core.$ZodPipe
    ) {
      node = node instanceof z.core.$ZodPipe ? node._zod.def.in : node._zod.def.innerType;
    }
    if (key === undefined) break;
    node = node instanceof z.core.$ZodObject ? node._zod.def.shape[String(key)] : undefined;
  }
  return node instanceof z.core.$ZodObject ? Object.keys(node._zod.def.shape).join(", ") : undefined;
}

function fieldPath(prefix: string, path: readonly PropertyKey[]): string {
  return [prefix, ...path.map(String)].filter((segment) => segment !== "").join(".");
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (typeof node === "object" && node !== null ? Reflect.get(node, key) : undefined),
    value,
  );
}

function shown(value: unknown): string {
  if (typeof value === "string") return `'${value}'`;
  if (value === undefined) return "nothing";
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}
