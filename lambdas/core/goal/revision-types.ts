/**
 * The revision types a human may queue (DESIGN §5), apart from the record's schema so that the CLI
 * can offer them as choices without loading zod (`goal-loops --help` loads nothing heavy).
 */
export const REVISION_TYPES = [
  "add_constraint",
  "modify_objective",
  "redirect",
  "corrective",
  "refinement",
  "pivot",
  "inject_context",
] as const;
export type RevisionType = (typeof REVISION_TYPES)[number];
