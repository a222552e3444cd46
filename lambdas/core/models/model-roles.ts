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
export type ModelRole = z.infer<typeof ModelRoleSchema>;
