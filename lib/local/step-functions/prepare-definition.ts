import { walkStates } from "../cdk-out/read-state-machines";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { isJsonObject } from "../shared/json";

/** Node timers hold at most 2^31-1 ms (24.8 days); a longer delay fires after 1 ms instead. */
export const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);
/** A callback task without TimeoutSeconds waits up to a year in AWS. */
const CALLBACK_DEFAULT_TIMEOUT_SECONDS = 365 * 24 * 3600;
/** A task without TimeoutSeconds has no practical limit in AWS (the engine would default to 60 s). */
const TASK_DEFAULT_TIMEOUT_SECONDS = 99_999_999;

/**
 * A copy of a definition that aws-local-stepfunctions runs the way Step Functions would:
 * - every Task gets an explicit TimeoutSeconds (the engine's default is 60 s, AWS has none, a year
 *   for callbacks), clamped to what a Node timer can hold;
 * - `$$.State.Name`, which the engine's context object lacks, is inlined where a payload template
 *   references it directly.
 */
export function prepareDefinition(definition: JsonObject): JsonObject {
  const copy = structuredClone(definition);
  if (typeof copy.TimeoutSeconds === "number")
    copy.TimeoutSeconds = Math.min(copy.TimeoutSeconds, MAX_TIMEOUT_SECONDS);
  for (const [name, state] of walkStates(copy)) {
    if (state.Type === "Task" && state.TimeoutSecondsPath === undefined) {
      const isCallback = String(state.Resource).endsWith(".waitForTaskToken");
      const wanted =
        typeof state.TimeoutSeconds === "number"
          ? state.TimeoutSeconds
          : isCallback
            ? CALLBACK_DEFAULT_TIMEOUT_SECONDS
            : TASK_DEFAULT_TIMEOUT_SECONDS;
      state.TimeoutSeconds = Math.min(wanted, MAX_TIMEOUT_SECONDS);
    }
    for (const field of ["Parameters", "ResultSelector", "ItemSelector"]) {
      const template = state[field];
      if (template !== undefined) state[field] = inlineStateName(template, name);
    }
  }
  return copy;
}

function inlineStateName(template: JsonValue, stateName: string): JsonValue {
  if (Array.isArray(template)) return template.map((item) => inlineStateName(item, stateName));
  if (!isJsonObject(template)) return template;
  return Object.fromEntries(
    Object.entries(template).map(([key, value]): [string, JsonValue] =>
      key.endsWith(".$") && value === "$$.State.Name"
        ? [key.slice(0, -2), stateName]
        : [key, inlineStateName(value, stateName)],
    ),
  );
}
