import * as z from "../zod";

/**
 * Where one delivered message stands: the `notify` tool's ledger of a real send (Slack, SES, a
 * webhook). `sending` is claimed before the send and replaced by `sent` or `failed` right after it;
 * an attempt that finds `sending` cannot tell whether the earlier one delivered, so it never sends.
 */
export const OutboxDeliverySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.discriminatedUnion("state", [
    z.object({
      state: z.literal("sending"),
      /** What the message went to, as a human reads it (`slack C0123ABCD`, `email ops@example.com`). */
      destination: z.string(),
      startedAt: z.iso.datetime(),
    }),
    z.object({
      state: z.literal("sent"),
      destination: z.string(),
      startedAt: z.iso.datetime(),
      sentAt: z.iso.datetime(),
      /** The provider's id of the message: Slack's `ts`, SES's MessageId, the webhook's HTTP status. */
      receipt: z.string(),
    }),
    z.object({
      state: z.literal("failed"),
      destination: z.string(),
      startedAt: z.iso.datetime(),
      failedAt: z.iso.datetime(),
      error: z.object({ name: z.string(), message: z.string() }),
    }),
  ]),
);
export type OutboxDelivery = z.infer<typeof OutboxDeliverySchema>;
/** The outcome of a send: what replaces the `sending` claim. */
export type OutboxDeliveryOutcome = Extract<OutboxDelivery, { state: "sent" | "failed" }>;

/**
 * A message the system sends to humans: the `notify` tool's, and the Slack and email approval
 * requests. Locally (and for approvals) it is the delivery itself: the CLI and `npm start` print
 * it. A `notify` that really sends keeps its ledger in `delivery`.
 */
export const OutboxMessageSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** Deterministic per side effect (goal, run, iteration, toolUseId): a retry finds the first put. */
    messageId: z.string(),
    goalId: z.string(),
    tenantId: z.string(),
    channel: z.string(),
    message: z.string(),
    createdAt: z.iso.datetime(),
    /** Absent for a message the outbox only records (local runs, approvals). */
    delivery: z.optional(OutboxDeliverySchema),
  }),
);
export type OutboxMessage = z.infer<typeof OutboxMessageSchema>;

export interface Outbox {
  /** First writer wins: a second put with the same messageId returns the stored message, sends nothing. */
  putMessage(message: OutboxMessage): Promise<{ message: OutboxMessage; created: boolean }>;
  /**
   * Replaces a `sending` delivery with its outcome. Only a message still `sending` changes: the
   * stored message is returned either way, so a caller sees whether its own outcome was kept.
   */
  recordDelivery(goalId: string, messageId: string, outcome: OutboxDeliveryOutcome): Promise<OutboxMessage>;
  listMessages(goalId: string): Promise<readonly OutboxMessage[]>;
}
