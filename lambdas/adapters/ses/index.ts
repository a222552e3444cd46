/**
 * ses/: Amazon SES v2: sending approval e-mails with their signed links.
 * Not here: the link's signature and the page (lambdas/core/human/email), or the link key
 * (secrets/).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./ses-email-notifier";
