import * as z from "zod";

/**
 * What the Slack door answers Slack with: a message for the person who acted (`ephemeral`) or the
 * channel (`in_channel`), or one replacing the clicked message. Slack shows a person only what a
 * 200 carries, so the door's refusals (400, 403) are messages too, not the API's error shape.
 * https://api.slack.com/interactivity/handling#message_responses
 */
export const SlackDoorAnswerSchema = z
  .strictObject({
    response_type: z.enum(["ephemeral", "in_channel"]).optional(),
    replace_original: z.boolean().optional(),
    text: z.string(),
    blocks: z
      .array(z.looseObject({ type: z.string() }))
      .readonly()
      .optional(),
  })
  .describe("A Slack message answering the request (Slack shows it to the person or the channel)");
export type SlackDoorAnswer = z.infer<typeof SlackDoorAnswerSchema>;
