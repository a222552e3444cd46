/**
 * secrets/: Secrets Manager, read through Powertools' cache: the Slack signing secret and bot
 * token, and the e-mail link key with its previous version (AWSPREVIOUS) for a rotation window;
 * when a secret's value last changed (DescribeSecret), for its age.
 * Every door reads its secrets here, so service folders may import this one.
 * Not here: what a secret signs or verifies (lambdas/core/human).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./email-secrets";
export * from "./read-secret";
export * from "./read-secret-version";
export * from "./secret-changed-date";
export * from "./slack-secrets";
