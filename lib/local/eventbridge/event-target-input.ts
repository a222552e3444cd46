import type { EventTargetSpec, JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { isJsonObject, parseJson } from "../shared/json";

/** `$`, `$.detail`, `$.detail.key`: the JSONPath subset rule targets use. */
function select(event: JsonObject, jsonPath: string): JsonValue | undefined {
  if (jsonPath === "$") return event;
  let node: JsonValue | undefined = event;
  for (const segment of jsonPath.replace(/^\$\.?/, "").split(".")) {
    node = isJsonObject(node) ? node[segment] : undefined;
  }
  return node;
}

/**
 * What a rule target receives: the event, a constant `Input`, the part at `InputPath`, or the
 * `InputTransformer` template filled from its paths (the result is parsed when it is JSON).
 */
export function targetInput(target: EventTargetSpec, event: JsonObject, ruleName: string): JsonValue {
  if (target.input !== undefined) return parseJson(target.input);
  if (target.inputPath !== undefined) return select(event, target.inputPath) ?? null;
  const transformer = target.inputTransformer;
  if (transformer === undefined) return event;
  const values: Record<string, JsonValue | undefined> = {
    "aws.events.rule-name": ruleName,
    "aws.events.event": event,
    "aws.events.event.json": event,
    ...Object.fromEntries(
      Object.entries(transformer.inputPathsMap).map(([name, p]) => [name, select(event, p)]),
    ),
  };
  const text = fillTemplate(transformer.inputTemplate, values);
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

/**
 * Replaces `<name>` placeholders as EventBridge does: outside a JSON string a value goes in as
 * JSON (a string gets quotes); inside a string it goes in as text, escaped for that string.
 */
function fillTemplate(template: string, values: Record<string, JsonValue | undefined>): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < template.length; i++) {
    const char = template[i] ?? "";
    if (char === "\\" && inString) {
      out += char + (template[i + 1] ?? "");
      i++;
      continue;
    }
    if (char === '"') inString = !inString;
    const placeholder = char === "<" ? /^<([\w.-]+)>/.exec(template.slice(i)) : null;
    const name = placeholder?.[1];
    if (placeholder === null || name === undefined || !(name in values)) {
      out += char;
      continue;
    }
    const value = values[name] ?? null;
    const json = JSON.stringify(value);
    out += inString ? JSON.stringify(typeof value === "string" ? value : json).slice(1, -1) : json;
    i += placeholder[0].length - 1;
  }
  return out;
}
