import { z } from "zod";
import { canonicalJson, sha256Hex } from "../core/canonical-json";
import type { BuiltInTool } from "./built-in-tool";

export const NotifyInputSchema = z.strictObject({
  channel: z.string().min(1).max(100).describe("Who the message is for, e.g. 'ops' or 'release-team'"),
  message: z.string().min(1).max(4000).describe("The message text a human will read"),
});

/**
 * The outbox message id of one notify call. Derived from the call's identity, never from a clock or
 * random source: a retried act step puts the same id again and the outbox keeps only the first.
 */
export function notifyMessageId(call: {
  goalId: string;
  runId: string;
  iteration: number;
  toolUseId: string;
}): string {
  const key = canonicalJson(["notify", call.goalId, call.runId, call.iteration, call.toolUseId]);
  return `notify-${sha256Hex(key)}`;
}

/** Irreversible: a message a human has read cannot be taken back. */
export const notifyTool: BuiltInTool<typeof NotifyInputSchema> = {
  name: "notify",
  description: "Send a short message to humans through the goal's outbox. Irreversible: it cannot be unsent.",
  inputSchema: NotifyInputSchema,
  risk: "irreversible",
  async execute(input, env) {
    const { goalId, tenantId, runId, iteration } = env.context;
    const { message } = await env.outbox.putMessage({
      messageId: notifyMessageId({ goalId, runId, iteration, toolUseId: env.call.toolUseId }),
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
