import type { GoalRecord } from "../../goal/goal-record";
import type { ModelCheckpoint } from "../../ports/goal-store";
import type { ToolSpec } from "../../ports/model-client";
import type { ModelChoice } from "../model-thinking";
import { type CompactionPorts, compactHistory, type StepHistory } from "./compaction";
import type { ContextSettings } from "./context-settings";
import { goalProgressText, stableGoalBlock } from "./goal-prefix";
import { type ContextHistory, type PackedContext, packContext } from "./pack";
import type { TokenCounter } from "./tokenizer";

export interface GoalContextRequest {
  readonly record: GoalRecord;
  /** The model the packed prompt goes to (decides the cache points). */
  readonly modelId: string;
  /** The `summarize` model and its thinking, for when the history must be compacted first. */
  readonly summarize: ModelChoice;
  readonly instructions: string;
  readonly tools?: readonly ToolSpec[];
  /** The role's own state text (limits, checks, the task at hand); goal progress notes are added before it. */
  readonly state: string;
  readonly settings?: ContextSettings;
  readonly count?: TokenCounter;
  /** The history already read this step (`readStepHistory`); read when absent. */
  readonly history?: StepHistory;
}

/**
 * How long the goal's stable prefix should stay cached: an hour for a goal that waits on people
 * (a tool its approval policy always gates, or a success check a human approves), whose next call
 * after a wait would find a 5-minute entry gone; the default 5 minutes otherwise. The packer keeps
 * the default on a model that takes no `1h`.
 */
export function prefixCacheTtl(record: GoalRecord): "1h" | undefined {
  const { spec } = record;
  const gated =
    spec.approval.requireFor.length > 0 ||
    spec.successChecks.some((check) => check.verify.kind === "approval");
  return gated ? "1h" : undefined;
}

export interface GoalContext {
  readonly packed: PackedContext;
  readonly history: ContextHistory;
  /** Summarize calls to count in the step's commit (`countCompactionUsage`). */
  readonly uncounted: readonly ModelCheckpoint[];
}

/**
 * The prompt of a goal's next model call over its step log: stable prefix, compaction summary,
 * recent steps, state, compacting first when the budget says so. What every loop pattern calls.
 */
export async function packGoalContext(
  ports: CompactionPorts,
  request: GoalContextRequest,
): Promise<GoalContext> {
  const { record } = request;
  const cacheTtl = prefixCacheTtl(record);
  const packWith = (history: ContextHistory) => {
    // The earlier states this history shows verbatim: a progress note one holds is not repeated.
    const progress = goalProgressText(
      record,
      history.steps.flatMap((step) => (step.conversation ? [step.conversation.prompt] : [])),
    );
    return packContext({
      modelId: request.modelId,
      instructions: request.instructions,
      goalBlock: stableGoalBlock(record),
      ...(request.tools ? { tools: request.tools } : {}),
      history,
      state: progress === "" ? request.state : `${progress}\n\n${request.state}`,
      ...(request.settings ? { settings: request.settings } : {}),
      ...(request.count ? { count: request.count } : {}),
      ...(cacheTtl ? { cacheTtl } : {}),
    });
  };
  // Compaction measures each candidate history by packing it; the last one it measured is the one
  // it returns, so that packing is kept instead of done again for the prompt.
  let last: { readonly history: ContextHistory; readonly packed: PackedContext } | undefined;
  const pack = (history: ContextHistory): PackedContext => {
    if (last && last.history.steps === history.steps && last.history.compaction === history.compaction) {
      return last.packed;
    }
    const packed = packWith(history);
    last = { history, packed };
    return packed;
  };
  const { uncounted, ...history } = await compactHistory(ports, {
    record,
    summarize: request.summarize,
    promptTokens: (candidate) => pack(candidate).totalTokens,
    ...(request.history ? { history: request.history } : {}),
    ...(request.settings ? { settings: request.settings } : {}),
    ...(request.count ? { count: request.count } : {}),
  });
  return { packed: pack(history), history, uncounted };
}
