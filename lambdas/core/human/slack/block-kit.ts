import { clip } from "../../goal/text";

/**
 * The few Block Kit shapes the Slack door sends, typed here so the core needs no Slack package.
 * Limits are Slack's: a header's text up to 150 characters, a section's up to 3,000, a field's up
 * to 2,000, a button's value up to 2,000.
 */

export interface PlainText {
  readonly type: "plain_text";
  readonly text: string;
  readonly emoji?: boolean;
}

export interface Mrkdwn {
  readonly type: "mrkdwn";
  readonly text: string;
}

export interface ButtonElement {
  readonly type: "button";
  readonly action_id: string;
  readonly text: PlainText;
  readonly value: string;
  readonly style?: "primary" | "danger";
  readonly confirm?: {
    readonly title: PlainText;
    readonly text: PlainText;
    readonly confirm: PlainText;
    readonly deny: PlainText;
  };
}

export type SlackBlock =
  | { readonly type: "header"; readonly text: PlainText }
  | { readonly type: "section"; readonly text?: Mrkdwn; readonly fields?: readonly Mrkdwn[] }
  | { readonly type: "context"; readonly elements: readonly Mrkdwn[] }
  | { readonly type: "divider" }
  | { readonly type: "actions"; readonly block_id: string; readonly elements: readonly ButtonElement[] };

/** A message as `chat.postMessage` and interaction responses take it; `text` is the notification fallback. */
export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly SlackBlock[];
}

/**
 * Text of a goal, an action or a person, made inert for mrkdwn: Slack reads `<…>` as links and
 * mentions (`<!channel>`), so a goal's objective could otherwise ping a whole channel.
 */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

export function mrkdwn(text: string, max = 3000): Mrkdwn {
  return { type: "mrkdwn", text: clip(text, max) };
}

export function plainText(text: string, max = 150): PlainText {
  return { type: "plain_text", text: clip(text, max), emoji: true };
}
