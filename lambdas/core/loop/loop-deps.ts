import { type FrozenTool, isWholeServerGrant } from "../goal/frozen-tools";
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

/**
 * The tools a goal may use: its GoalSpec `tools`, else the default set. A whole-server grant
 * (`<server>__*`) stands for the server's tools frozen into the goal, which are named one by one.
 */
export function grantedTools(
  record: {
    readonly spec: { readonly tools?: readonly string[] };
    readonly frozenTools?: readonly FrozenTool[];
  },
  defaultTools: readonly string[],
): readonly string[] {
  const named = record.spec.tools ?? defaultTools;
  const frozen = (record.frozenTools ?? []).map((tool) => tool.name);
  if (frozen.length === 0) return named;
  return [...new Set([...named.filter((name) => !isWholeServerGrant(name)), ...frozen])];
}
