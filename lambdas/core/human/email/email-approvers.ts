import { GoalLoopsError } from "../../goal/errors";

/**
 * The configured approver addresses (`approvals.email.approvers`): the only addresses approval
 * emails go to, and the only ones whose links decide. Compared without regard to case: mail
 * systems treat `Ops@Example.com` and `ops@example.com` as one mailbox.
 */
export type EmailApprovers = ReadonlySet<string>;

export function emailApprovers(addresses: Iterable<string>): EmailApprovers {
  return new Set([...addresses].map((address) => address.trim().toLowerCase()).filter((a) => a !== ""));
}

export function isEmailApprover(approvers: EmailApprovers, address: string): boolean {
  return approvers.has(address.trim().toLowerCase());
}

/** A goal's `approval.email` is not a configured approver: the email is not sent. */
export class EmailNotAnApproverError extends GoalLoopsError {
  override readonly name = "EmailNotAnApproverError";

  constructor(address: string) {
    super(
      `Approval email not sent: ${address} is not in approvals.email.approvers of goal-loops.config.json; ` +
        "the approval waits for a decision through the API or the CLI",
    );
  }
}
