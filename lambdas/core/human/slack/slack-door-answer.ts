import * as z from "../../zod";

/**
 * What the Slack door answers Slack with: a message for the person who acted (`ephemeral`) or the
 * channel (`in_channel`), or one replacing the clicked message. Slack shows a person only what a
 * 200 carries, so the door's refusals (400, 403) are messages too, not the API's error shape.
 * https://api.slack.com/interactivity/handling#message_responses
 */
export const SlackDoorAnswerSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .strictObject({
      response_type: z.optional(z.enum(["ephemeral", "in_channel"])),
      replace_original: z.optional(z.boolean()),
      text: z.string(),
      blocks: z.optional(z.readonly(z.array(z.looseObject({ type: z.string() })))),
    })
    .check(z.describe("A Slack message answering the request (Slack shows it to the person or the channel)")),
);
export type SlackDoorAnswer = z.infer<typeof SlackDoorAnswerSchema>;
