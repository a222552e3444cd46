import {
  DEFAULT_REPLAN_COOLDOWN_SECONDS,
  type PlanExecuteSettings,
} from "../../core/plan-execute/plan-execute-deps";
import { DEFAULT_CONTINUE_AS_NEW_AFTER } from "../../core/react/react-deps";
import { DEFAULT_TOOL_NAMES } from "../../tools/tool-registry";
import { modelTiersFromEnv, positiveIntEnv } from "../handler-environment";

/** The plan_execute steps' settings from the environment the PlanExecuteLoop construct sets. */
export function planExecuteSettingsFromEnv(): PlanExecuteSettings {
  return {
    models: modelTiersFromEnv(),
    continueAsNewAfter: positiveIntEnv("CONTINUE_AS_NEW_AFTER", DEFAULT_CONTINUE_AS_NEW_AFTER),
    replanCooldownSeconds: positiveIntEnv("REPLAN_COOLDOWN_SECONDS", DEFAULT_REPLAN_COOLDOWN_SECONDS),
    defaultTools: DEFAULT_TOOL_NAMES,
  };
}
