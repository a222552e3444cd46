import * as z from "zod";

/**
 * A message the system sends to humans (the `notify` tool now; Slack and email approvals later).
 * Until those channels are wired, delivery is this outbox: the CLI and `npm start` print it.
 */
export const OutboxMessageSchema = z.object({
  /** Deterministic per side effect (goal, run, iteration, toolUseId): a retry finds the first put. */
  messageId: z.string(),
  goalId: z.string(),
  tenantId: z.string(),
  channel: z.string(),
  message: z.string(),
  createdAt: z.iso.datetime(),
});
export type OutboxMessage = z.infer<typeof OutboxMessageSchema>;

export interface Outbox {
  /** First writer wins: a second put with the same messageId returns the stored message, sends nothing. */
  putMessage(message: OutboxMessage): Promise<{ message: OutboxMessage; created: boolean }>;
  listMessages(goalId: string): Promise<readonly OutboxMessage[]>;
}
