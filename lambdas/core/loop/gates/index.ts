/**
 * loop/gates/: where a run parks for a human (DESIGN §5): which calls of a turn need an approval
 * (the action gate, bound to the turn's checkpoint), storing the approval with its task token and
 * parking the goal (RequestApproval), the wait that expires (ApprovalExpired), and the decision on
 * an unrecoverable step failure; a fork's approvals decided in advance by its request (fork-decisions.ts).
 * Not here: sending the request to Slack or email (human/), or deciding it (human/).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./action-gate";
export * from "./approval-expired";
export * from "./fork-decisions";
export * from "./request-approval";
export * from "./step-decision";
