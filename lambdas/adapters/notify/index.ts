/**
 * notify/: the notify tool's senders: Slack chat.postMessage, SES, and webhooks.
 * Not here: the notify tool's contract and destinations (lambdas/tools/notify.ts).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./notify-senders";
