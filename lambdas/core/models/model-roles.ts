import * as z from "zod";

/** Every role a model call can play. Fixtures, checkpoints and per-role cost are keyed by it. */
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

export const ModelRoleSchema = z.enum(MODEL_ROLES);
/** Written from the list, not inferred from the schema: the construct's props name it (docs/construct.md). */
export type ModelRole = (typeof MODEL_ROLES)[number];
