/**
 * Every role a model call can play. Fixtures, checkpoints and per-role cost are keyed by it. Apart
 * from its zod schema (model-roles.ts), so that the CLI can check a `--model role=id` without
 * loading zod (`goal-loops --help` loads nothing heavy).
 */
export const MODEL_ROLES = [
  "reason",
  "plan",
  "execute",
  "attempt",
  "evaluate",
  "reflect",
  "judge",
  "reconcile",
  "summarize",
  "select",
] as const;

/** Written from the list, not inferred from the schema: the construct's props name it (docs/construct.md). */
export type ModelRole = (typeof MODEL_ROLES)[number];
