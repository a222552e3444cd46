import type { ApprovalEmail, EmailedApproval } from "./approval-email";

export interface EmailApprovalRequest {
  /** A stored pending approval; a full `Approval` fits, its task token is never read. */
  readonly approval: EmailedApproval;
  readonly objective: string;
  /** The recipient: the goal's `approval.email`. */
  readonly to: string;
}

export interface SentApprovalEmail {
  /** SES's message id, or the outbox message id locally. */
  readonly messageId: string;
  readonly delivery: "ses" | "outbox";
  readonly email: ApprovalEmail;
}

/**
 * Sends one approval request by email (SES in AWS, the outbox locally). Called by the approval gate
 * once per stored approval; the links in it decide through the email door.
 */
export interface EmailApprovalNotifier {
  sendApprovalEmail(request: EmailApprovalRequest): Promise<SentApprovalEmail>;
}
