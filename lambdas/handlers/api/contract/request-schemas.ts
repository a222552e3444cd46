import { APPROVAL_STATUSES } from "../../../core/ports/goal-store";
import * as z from "../../../core/zod";

/**
 * Request bodies and queries of the goals API that belong to no core concept: the routes parse
 * with them and the OpenAPI document describes them, so each shape is written once. The bodies
 * that are core concepts (GoalSpec, revisions, limits, fork and replay) stay in lambdas/core.
 */

/** A whole number in a query string, 1 to 1000. */
const queryCount = () =>
  z.optional(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^\d{1,4}$/, "must be a whole number")), z.transform(Number)),
      z.number().check(z.int(), z.gte(1), z.lte(1000)),
    ),
  );

/** `POST /goals/{goalId}/directive` */
export const DirectiveBodySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({ text: z.string().check(z.maxLength(8000)) }),
);

/** The body of `pause` and `cancel`: optional, and then `{reason?}` only. */
export const ReasonBodySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    reason: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(2000))),
  }),
);
export type ReasonBody = z.infer<typeof ReasonBodySchema>;

/** `GET /approvals?status=&limit=` (status defaults to pending). */
export const ListApprovalsQuerySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    status: z._default(z.enum(APPROVAL_STATUSES), "pending"),
    limit: queryCount(),
  }),
);

/** `POST /approvals/{approvalId}`: a decision is never implied; `decision` is required. */
export const DecideBodySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    decision: z.enum(["approve", "reject"]),
    comment: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(2000))),
  }),
);
export type DecideBody = z.infer<typeof DecideBodySchema>;

/** `GET /goals/{goalId}/runs/{runId}/history?nextToken=&maxResults=` */
export const RunHistoryQuerySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    nextToken: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
    maxResults: queryCount(),
  }),
);

/** The `Idempotency-Key` header of `POST /goals` and `POST /goals/{goalId}/fork`. */
export const IdempotencyKeySchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .string()
    .check(z.regex(/^[\x21-\x7e]{1,255}$/, "must be 1-255 printable ASCII characters without spaces")),
);
