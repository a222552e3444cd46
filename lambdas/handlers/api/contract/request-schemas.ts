import * as z from "zod";
import { APPROVAL_STATUSES } from "../../../core/ports/goal-store";

/**
 * Request bodies and queries of the goals API that belong to no core concept: the routes parse
 * with them and the OpenAPI document describes them, so each shape is written once. The bodies
 * that are core concepts (GoalSpec, revisions, limits, fork and replay) stay in lambdas/core.
 */

/** `POST /goals/{goalId}/directive` */
export const DirectiveBodySchema = z.strictObject({ text: z.string().max(8000) });

/** The body of `pause` and `cancel`: optional, and then `{reason?}` only. */
export const ReasonBodySchema = z.strictObject({ reason: z.string().trim().min(1).max(2000).optional() });
export type ReasonBody = z.infer<typeof ReasonBodySchema>;

/** `GET /approvals?status=&limit=` (status defaults to pending). */
export const ListApprovalsQuerySchema = z.object({
  status: z.enum(APPROVAL_STATUSES).default("pending"),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1).max(1000))
    .optional(),
});

/** `POST /approvals/{approvalId}`: a decision is never implied; `decision` is required. */
export const DecideBodySchema = z.strictObject({
  decision: z.enum(["approve", "reject"]),
  comment: z.string().trim().min(1).max(2000).optional(),
});
export type DecideBody = z.infer<typeof DecideBodySchema>;

/** `GET /goals/{goalId}/runs/{runId}/history?nextToken=&maxResults=` */
export const RunHistoryQuerySchema = z.object({
  nextToken: z.string().min(1).max(4096).optional(),
  maxResults: z
    .string()
    .regex(/^\d{1,4}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1).max(1000))
    .optional(),
});

/** The `Idempotency-Key` header of `POST /goals` and `POST /goals/{goalId}/fork`. */
export const IdempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, "must be 1-255 printable ASCII characters without spaces");
