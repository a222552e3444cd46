import type { ModelTiers } from "../models/model-tiers";
import type { Clock } from "../ports/clock";
import type { GoalStore } from "../ports/goal-store";
import type { ModelClient } from "../ports/model-client";
import type { StepLog } from "../ports/step-log";
import type { ToolRunner } from "../ports/tool-runner";
import type { Workspace } from "../ports/workspace";

/** Ids the loop makes up. Run ids are sequential per goal (`r1`, `r2` …), see `nextRunId`. */
export interface IdSource {
  nextRunId(currentRunId: string): string;
}

/** The ports a loop step may use (every pattern's). Each step takes only the ones it needs. */
export interface LoopPorts {
  readonly goals: GoalStore;
  /** Read only here: verify reads artifact content for `contains` checks and the judge's evidence. */
  readonly workspace: Pick<Workspace, "readFile">;
  readonly stepLog: StepLog;
  readonly model: ModelClient;
  readonly tools: ToolRunner;
  readonly now: Clock;
  readonly ids: IdSource;
}

/** Settings from the handler's environment. */
export interface LoopSettings {
  /** Tools a goal may use when its GoalSpec names none (the tool runner's default set). */
  readonly defaultTools: readonly string[];
  /** The heavy and fast models for roles the GoalSpec does not name (env HEAVY_MODEL_ID, FAST_MODEL_ID). */
  readonly models: ModelTiers;
  /** A run continues as new once it has done this many iterations (env CONTINUE_AS_NEW_AFTER). */
  readonly continueAsNewAfter: number;
}

export const DEFAULT_CONTINUE_AS_NEW_AFTER = 50;

/** The tools a goal may use: its GoalSpec `tools`, else the default set. */
export function grantedTools(spec: { readonly tools?: readonly string[] }, defaultTools: readonly string[]) {
  return spec.tools ?? defaultTools;
}
