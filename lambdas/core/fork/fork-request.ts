import { ApprovalIdSchema } from "../goal/goal-ids";
import { CorrectionTargetSchema, QueuedRevisionSchema } from "../goal/goal-record";
import { OptionalLimitsSchema } from "../goal/goal-spec";
import { MODEL_ROLES } from "../models/model-roles";
import * as z from "../zod";

/**
 * The revision a fork starts with, as `POST /goals/{goalId}/revisions` takes one (its full check,
 * the same as a revision's, runs when the fork queues it: see `forkRecord`).
 */
export const ForkRevisionSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject(
    z.extend(z.pick(QueuedRevisionSchema, { type: true, successChecks: true, reason: true }), {
      content: z.string().check(z.trim(), z.minLength(1, "must not be empty"), z.maxLength(8000)),
      target: z.optional(CorrectionTargetSchema),
    }).shape,
  ),
);

/** A model per role (or `default`) for the fork's calls from now on; checked against the allow-list. */
export const ForkModelsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject(
    Object.fromEntries(
      ["default", ...MODEL_ROLES].map((key) => [
        key,
        z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
      ]),
    ) as Record<"default" | (typeof MODEL_ROLES)[number], z.ZodMiniOptional<z.ZodMiniString>>,
  ),
);

/** An approval of the source, decided at or after the fork's step, answered otherwise in the fork. */
export const ForkDecisionRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    approvalId: ApprovalIdSchema,
    decision: z.enum(["approve", "reject"]),
    comment: z.optional(z.string().check(z.maxLength(2000))),
  }),
);

/** `POST /goals/{goalId}/fork`: the body. zod is the single source of this shape (OpenAPI included). */
export const ForkRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    /** The step the fork starts after, numbered as the step log numbers it (`GET /goals/{goalId}/steps`). */
    atStep: z.number().check(z.int(), z.gte(1)),
    /** A revision queued on the fork before it runs: applied at its first step boundary. */
    revision: z.optional(ForkRevisionSchema),
    /** Models per role for the fork's calls (the roles not named keep the source's). */
    models: z.optional(ForkModelsSchema),
    /** Limits that replace the source's (the fork's usage counts what it inherited, as the source's did). */
    limits: z.optional(OptionalLimitsSchema),
    /** Approvals of the source decided at or after `atStep`, decided otherwise in the fork. */
    decisions: z.optional(z.array(ForkDecisionRequestSchema).check(z.maxLength(50))),
  }),
);
export type ForkRequest = z.infer<typeof ForkRequestSchema>;

/** `POST /goals/{goalId}/replay`: the body (may be empty). */
export const ReplayRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    /** The last step to replay. @default the goal's counted steps */
    toStep: z.optional(z.number().check(z.int(), z.gte(1))),
  }),
);
export type ReplayRequest = z.infer<typeof ReplayRequestSchema>;
