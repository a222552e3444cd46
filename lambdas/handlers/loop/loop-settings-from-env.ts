import { DEFAULT_CONTINUE_AS_NEW_AFTER, type LoopSettings } from "../../core/loop/loop-deps";
import { DEFAULT_TOOL_NAMES } from "../../tools/default-tools";
import { modelTiersFromEnv, positiveIntEnv } from "../handler-environment";

/**
 * The settings every loop's steps share: model tiers, CONTINUE_AS_NEW_AFTER, the default tools.
 * Its own module: the tool registry it names loads every tool, which the doors and the API must
 * not pay for at cold start (they import handler-environment).
 */
export function loopSettingsFromEnv(): LoopSettings {
  return {
    models: modelTiersFromEnv(),
    continueAsNewAfter: positiveIntEnv("CONTINUE_AS_NEW_AFTER", DEFAULT_CONTINUE_AS_NEW_AFTER),
    defaultTools: DEFAULT_TOOL_NAMES,
  };
}
