import * as z from "zod";
import type { BuiltInTool } from "./built-in-tool";

export const NotifyInputSchema = z.strictObject({
  channel: z.string().min(1).max(100).describe("Who the message is for, e.g. 'ops' or 'release-team'"),
  message: z.string().min(1).max(4000).describe("The message text a human will read"),
});

/**
 * The outbox message id of one notify call: its idempotency key (ToolCallContext), never a clock or
 * a random value. A retried Act that runs the call again puts the same id, and the outbox keeps only
 * the first message (a conditional put), so humans get it once.
 */
export function notifyMessageId(idempotencyKey: string): string {
  return `notify-${idempotencyKey}`;
}

/** Irreversible: a message a human has read cannot be taken back. */
export const notifyTool: BuiltInTool<typeof NotifyInputSchema> = {
  name: "notify",
  description: "Send a short message to humans through the goal's outbox. Irreversible: it cannot be unsent.",
  inputSchema: NotifyInputSchema,
  risk: "irreversible",
  async execute(input, env) {
    const { goalId, tenantId, idempotencyKey } = env.context;
    const { message } = await env.outbox.putMessage({
      messageId: notifyMessageId(idempotencyKey),
      goalId,
      tenantId,
      channel: input.channel,
      message: input.message,
      createdAt: env.now().toISOString(),
    });
    // The stored message, not the one just built: a retry reports the first send, byte for byte.
    return {
      value: { messageId: message.messageId, channel: message.channel, createdAt: message.createdAt },
    };
  },
};
