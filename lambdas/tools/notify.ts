import type { OutboxDeliveryOutcome, OutboxMessage } from "../core/ports/outbox";
import * as z from "../core/zod";
import type { BuiltInTool, JsonObject, NotifyPolicy, ToolEnvironment, ToolOutput } from "./built-in-tool";
import { describeDestination, type NotifyDestination } from "./notify-destinations";
import { ToolCallError } from "./tool-call-error";

export const NotifyInputSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    channel: z.string().check(z.minLength(1), z.maxLength(100)).register(z.globalRegistry, {
      description:
        "Who the message is for: one of the deployment's notify channels, e.g. 'ops' or 'release-team'",
    }),
    message: z
      .string()
      .check(z.minLength(1), z.maxLength(4000))
      .register(z.globalRegistry, { description: "The message text a human will read" }),
  }),
);
type NotifyInput = z.output<typeof NotifyInputSchema>;

/**
 * The outbox message id of one notify call: its idempotency key (ToolCallContext), never a clock or
 * a random value. A retried Act that runs the call again puts the same id, and the outbox keeps only
 * the first message (a conditional put), so humans get it once.
 */
export function notifyMessageId(idempotencyKey: string): string {
  return `notify-${idempotencyKey}`;
}

/** The configured destination of `channel`; own keys only, so `constructor` is no channel. */
function destinationOf(policy: NotifyPolicy, channel: string): NotifyDestination | undefined {
  return Object.hasOwn(policy.channels, channel) ? policy.channels[channel] : undefined;
}

function unknownChannel(policy: NotifyPolicy, channel: string): ToolCallError {
  const names = Object.keys(policy.channels).sort();
  const configured =
    names.length === 0 ? "none is configured (notify.channels)" : `configured: ${names.join(", ")}`;
  return new ToolCallError("NotifyChannelUnknown", `There is no notify channel '${channel}'; ${configured}`);
}

/**
 * Before any approval is asked for: an unknown channel, or a webhook whose host left the allow-list
 * (`http.allowedHosts`, checked at synth too), is refused, so no human approves what cannot be sent.
 */
function refusal(input: NotifyInput, env: ToolEnvironment): ToolCallError | undefined {
  if (env.notify.mode === "outbox") return undefined;
  const destination = destinationOf(env.notify, input.channel);
  if (destination === undefined) return unknownChannel(env.notify, input.channel);
  if (destination.type !== "webhook") return undefined;
  const host = new URL(destination.url).hostname.toLowerCase();
  const allowed = env.http.allowedHosts.map((name) => name.trim().toLowerCase());
  if (allowed.includes(host)) return undefined;
  return new ToolCallError(
    "NotifyChannelRefused",
    `Notify channel '${input.channel}' is a webhook to host '${host}', which is not in the allow-list (http.allowedHosts)`,
  );
}

/** Locally: the message is recorded in the outbox, as the CLI and `npm start` show it. */
async function recordOnly(input: NotifyInput, env: ToolEnvironment): Promise<ToolOutput> {
  const { goalId, tenantId, idempotencyKey } = env.context;
  const { message } = await env.outbox.putMessage({
    messageId: notifyMessageId(idempotencyKey),
    goalId,
    tenantId,
    channel: input.channel,
    message: input.message,
    createdAt: env.now().toISOString(),
  });
  return outboxResult(message);
}

/** The stored message, not the one just built: a retry reports the first send, byte for byte. */
function outboxResult(message: OutboxMessage): ToolOutput {
  return { value: { messageId: message.messageId, channel: message.channel, createdAt: message.createdAt } };
}

/** Sends once; what the provider answered (or why it did not take the message) becomes the outcome. */
async function deliver(
  env: ToolEnvironment,
  request: Parameters<NotifyPolicy["send"]>[0],
  claimed: { readonly destination: string; readonly startedAt: string },
): Promise<OutboxDeliveryOutcome> {
  try {
    const { receipt } = await env.notify.send(request);
    return { state: "sent", ...claimed, sentAt: env.now().toISOString(), receipt };
  } catch (error) {
    const name = error instanceof Error ? error.name : "UnknownError";
    const message = error instanceof Error ? error.message : String(error);
    return { state: "failed", ...claimed, failedAt: env.now().toISOString(), error: { name, message } };
  }
}

/** What the ledger says of the call, as the model gets it: the same for the first attempt and every retry. */
function ledgerResult(message: OutboxMessage): ToolOutput {
  const { delivery, channel } = message;
  // A record without a ledger was written in outbox mode: that is what this call did.
  if (delivery === undefined) return outboxResult(message);
  switch (delivery.state) {
    case "sent": {
      const value: JsonObject = {
        messageId: message.messageId,
        channel,
        destination: delivery.destination,
        receipt: delivery.receipt,
        sentAt: delivery.sentAt,
      };
      return { value };
    }
    case "failed":
      throw new ToolCallError(
        "NotifyDeliveryFailed",
        `notify to channel '${channel}' (${delivery.destination}) failed: ${delivery.error.name}: ${delivery.error.message}`,
      );
    case "sending":
      throw new ToolCallError(
        "NotifyDeliveryUncertain",
        `notify to channel '${channel}' (${delivery.destination}): an earlier attempt of this call started sending at ${delivery.startedAt} and stopped before it recorded the outcome, so the message may or may not have arrived. It is not sent again, so nobody gets it twice; ask before sending it anew.`,
      );
  }
}

/**
 * Deployed: claim the call's ledger entry (a conditional put keyed by the idempotency key), send,
 * record the outcome. A retry finds the entry and answers from it without sending: `sent` gives the
 * first result, `failed` the first error, and `sending` (the attempt stopped between claim and
 * record, perhaps after the send) is an error, never a second send.
 */
async function sendOnce(input: NotifyInput, env: ToolEnvironment): Promise<ToolOutput> {
  const destination = destinationOf(env.notify, input.channel);
  if (destination === undefined) throw unknownChannel(env.notify, input.channel);
  const { goalId, tenantId, idempotencyKey } = env.context;
  const messageId = notifyMessageId(idempotencyKey);
  const startedAt = env.now().toISOString();
  const claimed = { destination: describeDestination(destination), startedAt };
  const claim = await env.outbox.putMessage({
    messageId,
    goalId,
    tenantId,
    channel: input.channel,
    message: input.message,
    createdAt: startedAt,
    delivery: { state: "sending", ...claimed },
  });
  if (!claim.created) return ledgerResult(claim.message);
  const outcome = await deliver(
    env,
    { destination, channel: input.channel, message: input.message, goalId, idempotencyKey },
    claimed,
  );
  return ledgerResult(await env.outbox.recordDelivery(goalId, messageId, outcome));
}

/** Irreversible: a message a human has read cannot be taken back. */
export const notifyTool: BuiltInTool<typeof NotifyInputSchema> = {
  name: "notify",
  description:
    "Send a short message to humans on a named channel (Slack, e-mail or a webhook, as the deployment configures it). Irreversible: it cannot be unsent.",
  inputSchema: NotifyInputSchema,
  risk: "irreversible",
  refuse: refusal,
  execute: (input, env) => (env.notify.mode === "outbox" ? recordOnly(input, env) : sendOnce(input, env)),
};
