/**
 * An approval's statuses, apart from the store's schemas so that the CLI can offer them as choices
 * without loading zod.
 */
export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "expired", "superseded"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
