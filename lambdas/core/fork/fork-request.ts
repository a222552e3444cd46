import * as z from "zod";
import { ApprovalIdSchema } from "../goal/goal-ids";
import { CorrectionTargetSchema, QueuedRevisionSchema } from "../goal/goal-record";
import { OptionalLimitsSchema } from "../goal/goal-spec";
import { MODEL_ROLES } from "../models/model-roles";

/**
 * The revision a fork starts with, as `POST /goals/{goalId}/revisions` takes one (its full check,
 * the same as a revision's, runs when the fork queues it: see `forkRecord`).
 */
export const ForkRevisionSchema = QueuedRevisionSchema.pick({ type: true, successChecks: true, reason: true })
  .extend({
    content: z.string().trim().min(1, "must not be empty").max(8000),
    target: CorrectionTargetSchema.optional(),
  })
  .strict();

/** A model per role (or `default`) for the fork's calls from now on; checked against the allow-list. */
export const ForkModelsSchema = z
  .object(
    Object.fromEntries(
      ["default", ...MODEL_ROLES].map((key) => [key, z.string().min(1).max(256).optional()]),
    ) as Record<"default" | (typeof MODEL_ROLES)[number], z.ZodOptional<z.ZodString>>,
  )
  .strict();

/** An approval of the source, decided at or after the fork's step, answered otherwise in the fork. */
export const ForkDecisionRequestSchema = z
  .object({
    approvalId: ApprovalIdSchema,
    decision: z.enum(["approve", "reject"]),
    comment: z.string().max(2000).optional(),
  })
  .strict();

/** `POST /goals/{goalId}/fork`: the body. zod is the single source of this shape (OpenAPI included). */
export const ForkRequestSchema = z
  .object({
    /** The step the fork starts after, numbered as the step log numbers it (`GET /goals/{goalId}/steps`). */
    atStep: z.number().int().min(1),
    /** A revision queued on the fork before it runs: applied at its first step boundary. */
    revision: ForkRevisionSchema.optional(),
    /** Models per role for the fork's calls (the roles not named keep the source's). */
    models: ForkModelsSchema.optional(),
    /** Limits that replace the source's (the fork's usage counts what it inherited, as the source's did). */
    limits: OptionalLimitsSchema.optional(),
    /** Approvals of the source decided at or after `atStep`, decided otherwise in the fork. */
    decisions: z.array(ForkDecisionRequestSchema).max(50).optional(),
  })
  .strict();
export type ForkRequest = z.infer<typeof ForkRequestSchema>;

/** `POST /goals/{goalId}/replay`: the body (may be empty). */
export const ReplayRequestSchema = z
  .object({
    /** The last step to replay. @default the goal's counted steps */
    toStep: z.number().int().min(1).optional(),
  })
  .strict();
export type ReplayRequest = z.infer<typeof ReplayRequestSchema>;
