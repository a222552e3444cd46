/**
 * human/email/: approval by email: the signed link (approval id, decision, expiry, HMAC; never
 * the task token), the email an approver gets, and the confirmation and answer pages of the email
 * door (a GET shows a page, only a POST decides).
 * Not here: sending (lambdas/adapters/ses/ses-email-notifier.ts) or the door's Lambda
 * (lambdas/handlers/human/email).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./approval-email";
export * from "./approval-link";
export * from "./email-approval-notifier";
export * from "./email-approvers";
export * from "./html";
export * from "./pages";
