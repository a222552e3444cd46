import { ModelRoleSchema } from "../models/model-roles";
import * as z from "../zod";

/**
 * A booked moment of a model's quota that a goal waits for: kept on the goal while it waits in a
 * Wait state, and spent when its step runs again at `slotAt` (no second booking).
 */
export const CapacityHoldSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    model: z.string().check(z.minLength(1)),
    lane: z.number().check(z.int(), z.gte(0)),
    slotAt: z.iso.datetime(),
    /** The quota tokens reserved for the call (its input estimate plus `maxTokens`). */
    tokens: z.number().check(z.int(), z.gte(0)),
    /** Milliseconds of the lane's token TAT per token when it was booked, to settle at the same rate. */
    tokenIntervalMs: z.number().check(z.positive()),
  }),
);
export type CapacityHold = z.infer<typeof CapacityHoldSchema>;

export const CAPACITY_WAIT_REASONS = ["quota", "throttled", "contention", "tenant_share"] as const;
/**
 * Why a call waits: its model's quota is booked, Bedrock throttled it, bookings kept colliding, or
 * its tenant's share of the model (tenants.limits modelShare) is booked.
 */
export type CapacityWaitReason = (typeof CAPACITY_WAIT_REASONS)[number];

/**
 * What a running goal is doing besides its step, kept on the record: waiting for model capacity
 * (DESIGN §4). The goal stays `running`; its run sits in a Wait state until `until`, then the step
 * that asked runs again. Cleared by the model call it waited for (`recordModelUsage`).
 */
export const CapacityWaitActivitySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    kind: z.literal("waiting_for_capacity"),
    model: z.string().check(z.minLength(1)),
    role: ModelRoleSchema,
    /** When the goal began to wait for this call (kept across its waits). */
    since: z.iso.datetime(),
    /** When the current wait ends and the step asks again. */
    until: z.iso.datetime(),
    reason: z.enum(CAPACITY_WAIT_REASONS),
    /** How many times this call has waited. */
    attempts: z.number().check(z.int(), z.gte(1)),
    hold: z.optional(CapacityHoldSchema),
  }),
);
export type CapacityWaitActivity = z.infer<typeof CapacityWaitActivitySchema>;

/**
 * A running goal's activity as the snapshot shows it: the step it is in, or the model capacity it
 * waits for (never the booking itself, which is the governor's).
 */
export const GoalActivitySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("step"), task: z.string() }),
    z.object({
      kind: z.literal("waiting_for_capacity"),
      model: z.string(),
      role: ModelRoleSchema,
      since: z.string(),
      until: z.string(),
      reason: z.enum(CAPACITY_WAIT_REASONS),
    }),
  ]),
);
export type GoalActivity = z.infer<typeof GoalActivitySchema>;
