/**
 * slack/: the Slack Web API and response URLs: posting and updating approval messages, and
 * answering an interaction.
 * Not here: verifying Slack's signatures and building the messages (lambdas/core/human/slack), or
 * the signing secret and bot token (secrets/).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./slack-notifier";
export * from "./slack-responder";
export * from "./slack-web-api";
