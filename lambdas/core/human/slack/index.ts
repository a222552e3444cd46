/**
 * human/slack/: approval and the `/goal` command in Slack: request signature verification and
 * replay guard, the Block Kit approval message and goal snapshot, the slash command's grammar and
 * the request payloads, and which tenant a request from a channel acts for.
 * Not here: the Slack Web API calls (lambdas/adapters) or the door's Lambda
 * (lambdas/handlers/human/slack).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./approval-message";
export * from "./block-kit";
export * from "./goal-snapshot-blocks";
export * from "./replay-guard";
export * from "./response-url";
export * from "./slack-approvers";
export * from "./slack-command";
export * from "./slack-payloads";
export * from "./slack-routes";
export * from "./slack-tenants";
export * from "./verify-signature";
