import * as z from "../../zod";

/**
 * What the Slack door reads of Slack's requests. Both arrive form-encoded: an interaction as one
 * `payload` field holding JSON, a slash command as plain fields. Loose objects: Slack adds fields.
 */

export const BlockActionsPayloadSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.looseObject({
    type: z.literal("block_actions"),
    user: z.looseObject({
      id: z.string().check(z.minLength(1)),
      username: z.optional(z.string()),
      name: z.optional(z.string()),
    }),
    team: z.nullish(z.looseObject({ id: z.string() })),
    actions: z.array(
      z.looseObject({
        action_id: z.string(),
        block_id: z.optional(z.string()),
        value: z.optional(z.string()),
      }),
    ),
    /** Where the message can be replaced (Slack's documented way to update the source message). */
    response_url: z.optional(z.url()),
    /** The conversation the clicked message is in, when it is in one. */
    channel: z.nullish(z.looseObject({ id: z.string().check(z.minLength(1)) })),
    /** The clicked message: its conversation again (`channel_id`), as Slack's container carries it. */
    container: z.nullish(z.looseObject({ channel_id: z.optional(z.string().check(z.minLength(1))) })),
  }),
);
export type BlockActionsPayload = z.infer<typeof BlockActionsPayloadSchema>;

/** The channel a click came from: the payload's `channel`, else its message container's. */
export function clickChannelOf(payload: BlockActionsPayload): string | undefined {
  return payload.channel?.id ?? payload.container?.channel_id ?? undefined;
}

/** Any interaction: only its type is needed to tell block actions from shortcuts, views and the rest. */
export const InteractionTypeSchema = /* @__PURE__ */ z.lazySchema(() => z.looseObject({ type: z.string() }));

export const SlashCommandSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.looseObject({
    command: z.string().check(z.minLength(1)),
    text: z._default(z.string(), ""),
    user_id: z.string().check(z.minLength(1)),
    user_name: z.optional(z.string()),
    team_id: z.optional(z.string()),
    channel_id: z.optional(z.string()),
    response_url: z.optional(z.url()),
  }),
);
export type SlashCommand = z.infer<typeof SlashCommandSchema>;

/** How the Slack door records who acted: `slack:<user id>`, shown back as a mention. */
export function slackActor(userId: string): string {
  return `slack:${userId}`;
}
