import * as z from "../zod";

/**
 * One entry of a goal's append-only event log. `seq` is gap-free per goal, starting at 1.
 * Type-specific fields sit beside the common ones, as `GET /goals/{id}/events` shows them.
 */
export const GoalEventSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.catchall(
    z.object({
      goalId: z.string(),
      seq: z.number().check(z.int(), z.gte(1)),
      type: z.string().check(z.minLength(1)),
      at: z.iso.datetime(),
      runId: z.optional(z.string()),
    }),
    z.json(),
  ),
);
export type GoalEvent = z.infer<typeof GoalEventSchema>;

/**
 * An event before the store gives it a sequence number. Spelled out rather than `Omit<GoalEvent, …>`:
 * Omit over the catch-all index signature would drop `type` and `at` and accept any object.
 */
export type NewGoalEvent = {
  type: string;
  at: string;
  runId?: string;
} & { [field: string]: z.core.util.JSONType | undefined };
