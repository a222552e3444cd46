import * as z from "zod";
import { GoalSpecSchema } from "../../lambdas/core/goal/goal-spec";
import { RevisionRequestSchema } from "../../lambdas/core/goal/revisions";
import { APPROVAL_STATUSES } from "../../lambdas/core/ports/goal-store";
import { describe } from "../../lambdas/core/zod";
import { PATH_PARAMETERS } from "../../lambdas/handlers/api/contract/operations";
import { DecideBodySchema, ReasonBodySchema } from "../../lambdas/handlers/api/contract/request-schemas";

/**
 * The MCP tools' arguments, made of the API contract's own schemas: a tool takes exactly what its
 * route takes (the path parameter beside the body), so a field cannot mean one thing over HTTP and
 * another over MCP.
 */

// The contract's schemas are zod/mini (the Lambda code's): described through a check, on a copy.
const goalId = PATH_PARAMETERS.goalId.check(describe("The goal's id (`g-…`), as start_goal answered it"));

export const GoalRefInput = z.strictObject({ goalId });

export const StartGoalInput = GoalSpecSchema;

/** The longest wait_for_goal holds a call: under the 60 s most hosts (and the SDK's client) time out at. */
export const MAX_WAIT_SECONDS = 50;

export const WaitForGoalInput = z.strictObject({
  goalId,
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_WAIT_SECONDS)
    .default(25)
    .describe(`How long to wait for a change, at most ${MAX_WAIT_SECONDS} s; call again to wait longer`),
});

export const ListApprovalsInput = z.strictObject({
  status: z.enum(APPROVAL_STATUSES).default("pending"),
});

/** `decision` has no default: a host that leaves it out gets an error, never an approval. */
export const DecideApprovalInput = z.strictObject({
  ...DecideBodySchema.shape,
  approvalId: PATH_PARAMETERS.approvalId.check(describe("The approval's id (`ap-…`), from list_approvals")),
});

export const ReviseGoalInput = z.strictObject({ goalId, revision: RevisionRequestSchema });

export const ReasonedControlInput = z.strictObject({ ...ReasonBodySchema.shape, goalId });
