import {
  DEFAULT_REPLAN_COOLDOWN_SECONDS,
  type PlanExecuteSettings,
} from "../../../core/patterns/plan-execute/plan-execute-deps";
import { positiveIntEnv } from "../../handler-environment";
import { loopSettingsFromEnv } from "../../loop/loop-settings-from-env";

/** The plan_execute steps' settings from the environment the PlanExecuteLoop construct sets. */
export function planExecuteSettingsFromEnv(): PlanExecuteSettings {
  return {
    ...loopSettingsFromEnv(),
    replanCooldownSeconds: positiveIntEnv("REPLAN_COOLDOWN_SECONDS", DEFAULT_REPLAN_COOLDOWN_SECONDS),
  };
}
