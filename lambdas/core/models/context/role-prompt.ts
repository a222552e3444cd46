import { satisfiedCheckIds, unsatisfiedCheckIds } from "../../goal/evidence/check-evidence";
import type { GoalRecord } from "../../goal/goal-record";
import type { Message, ModelRequest } from "../../ports/model-client";
import type { ContextSettings } from "./context-settings";
import { goalProgressText, stableGoalBlock } from "./goal-prefix";
import { stablePrefix } from "./prefix";

/** Which moving parts of the goal a role's prompt shows after the cache point. */
export interface GoalStateParts {
  /** Which success checks are satisfied and which are not (the stable goal block does not say). */
  readonly checks?: boolean;
  /** Weak evidence, pending corrections and the latest progress notes (`goalProgressText`). */
  readonly progress?: boolean;
}

export interface RolePromptInput {
  readonly modelId: string;
  /** The role's instructions: the first block of the stable prefix. */
  readonly instructions: string;
  /** The goal the call is about; absent before a goal record exists (`select`). */
  readonly record?: GoalRecord;
  /** The goal's moving parts the role's own question does not show already. */
  readonly show?: GoalStateParts;
  /** The role's question: the volatile last user message. */
  readonly question: string;
  readonly settings?: Pick<ContextSettings, "cacheModels">;
}

export interface RolePrompt {
  readonly system: ModelRequest["system"];
  readonly messages: Message[];
}

const list = (ids: readonly string[]) => (ids.length === 0 ? "none" : ids.join(", "));

/** Which success checks are satisfied now: kept out of the cached prefix, which only a revision changes. */
export function checkStatusText(record: GoalRecord): string {
  return [
    `Success checks satisfied: ${list(satisfiedCheckIds(record))}`,
    `Success checks not yet satisfied: ${list(unsatisfiedCheckIds(record))}`,
  ].join("\n");
}

/**
 * The prompt of a model call that is not built over the step log (plan, execute, attempt, reflect,
 * judge/evaluate, reconcile, select), in the packer's layout: the role's instructions and the
 * stable goal block (`stableGoalBlock`: same bytes on every call of a revision), a cache point
 * when the model caches, then one user message with what moves (check status, progress notes,
 * corrections) and the role's question. Two calls of a role for one goal revision share the
 * prefix byte for byte whatever happened between them. Nothing is summarized: these prompts do
 * not grow with the steps, so they need no `summarize` call.
 */
export function packRolePrompt(input: RolePromptInput): RolePrompt {
  const { record, show } = input;
  const moving = record
    ? [
        ...(show?.checks ? [checkStatusText(record)] : []),
        ...(show?.progress ? [goalProgressText(record)] : []),
      ].filter((text) => text !== "")
    : [];
  const goalBlock = record ? stableGoalBlock(record) : undefined;
  return {
    system: stablePrefix(input.modelId, input.instructions, goalBlock, input.settings),
    messages: [{ role: "user", content: [{ text: [...moving, input.question].join("\n\n") }] }],
  };
}
