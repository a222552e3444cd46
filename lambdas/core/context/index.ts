/**
 * The context packer: what every model call's prompt is made of, and how it stays flat as a goal
 * runs long. `packGoalContext` is the one call a loop pattern needs; the parts are exported for
 * prompts that are not built over the step log.
 */
export {
  COMPACTION_RUN_ID,
  type CompactedHistory,
  type CompactionPorts,
  type CompactionRequest,
  compactHistory,
  countCompactionUsage,
  readStepHistory,
  type StepHistory,
  SUMMARIZE_INSTRUCTIONS,
} from "./compaction";
export {
  COMPACTION_STRIDE,
  type ContextSettings,
  ContextSettingsSchema,
  DEFAULT_CONTEXT_SETTINGS,
  supportsPromptCache,
} from "./context-settings";
export { goalProgressText, stableGoalBlock } from "./goal-prefix";
export {
  type CompactionSummary,
  type ContextHistory,
  type ContextInput,
  type PackedContext,
  packContext,
  promptTokens,
} from "./pack";
export { type GoalContext, type GoalContextRequest, packGoalContext } from "./pack-goal";
export { CACHE_POINT, stablePrefix } from "./prefix";
export {
  checkStatusText,
  type GoalStateParts,
  packRolePrompt,
  type RolePrompt,
  type RolePromptInput,
} from "./role-prompt";
export { boundToolResult, stepMessages, stepsAsText, toolResultText } from "./step-history";
export { countTokens, type TokenCounter, tokenCounter } from "./tokenizer";
