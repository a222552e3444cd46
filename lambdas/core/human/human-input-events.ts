/**
 * Every human input (approval decision, revision, pause, resume, retry, cancel) becomes one EventBridge event on
 * the stack's bus; API, Slack, email and CLI are only different doors to it (DESIGN §5). These
 * names are the contract between the doors that publish, the rules that match and the resume
 * handler that answers, so they live here once, with the zod schema of each event's `detail`.
 * No AWS SDK import.
 */

import { QueuedRevisionSchema } from "../goal/goal-record";
import { parseOrThrow } from "../goal/validation";
import * as z from "../zod";

/** The `source` of every human-input event. */
export const HUMAN_INPUT_SOURCE = "goal-loops.human";

/** The `detail-type` of each kind of human input. */
export const HUMAN_INPUT_DETAIL_TYPES = {
  approvalDecided: "Approval Decided",
  revisionRequested: "Revision Requested",
  pauseRequested: "Pause Requested",
  resumeRequested: "Resume Requested",
  retryRequested: "Retry Requested",
  cancelRequested: "Cancel Requested",
} as const;

export type HumanInputDetailType = (typeof HUMAN_INPUT_DETAIL_TYPES)[keyof typeof HUMAN_INPUT_DETAIL_TYPES];

/** All detail types, e.g. for one rule that routes every human input to the resume handler. */
export const ALL_HUMAN_INPUT_DETAIL_TYPES: readonly HumanInputDetailType[] =
  Object.values(HUMAN_INPUT_DETAIL_TYPES);

/** The doors a human input can come through; recorded on every event for the audit trail. */
export const HUMAN_INPUT_CHANNELS = ["api", "cli", "slack", "email"] as const;
export const HumanInputChannelSchema = /* @__PURE__ */ z.lazySchema(() => z.enum(HUMAN_INPUT_CHANNELS));
export type HumanInputChannel = z.infer<typeof HumanInputChannelSchema>;

/** `detail` of `Approval Decided`: one decision on one approval, already taken (exactly once) by the door. */
export const ApprovalDecidedDetailSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    approvalId: z.string().check(z.minLength(1)),
    goalId: z.string().check(z.minLength(1)),
    decision: z.enum(["approve", "reject"]),
    decidedBy: z.string().check(z.minLength(1)),
    comment: z.optional(z.string().check(z.maxLength(2000))),
    channel: HumanInputChannelSchema,
    decidedAt: z.iso.datetime(),
  }),
);
export type ApprovalDecidedDetail = z.infer<typeof ApprovalDecidedDetailSchema>;

/** `detail` of `Revision Requested`: a revision to queue in the goal's inbox (DESIGN §5). */
export const RevisionRequestedDetailSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string().check(z.minLength(1)),
    revisionId: z.string().check(z.minLength(1)),
    type: QueuedRevisionSchema.shape.type,
    content: QueuedRevisionSchema.shape.content,
    successChecks: QueuedRevisionSchema.shape.successChecks,
    requestedBy: z.string().check(z.minLength(1)),
    reason: QueuedRevisionSchema.shape.reason,
    target: QueuedRevisionSchema.shape.target,
    channel: HumanInputChannelSchema,
    requestedAt: z.iso.datetime(),
  }),
);
export type RevisionRequestedDetail = z.infer<typeof RevisionRequestedDetailSchema>;

/** `detail` of `Pause Requested`: pause a running or waiting goal at its next step boundary. */
export const PauseRequestedDetailSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string().check(z.minLength(1)),
    requestedBy: z.string().check(z.minLength(1)),
    reason: z.optional(z.string().check(z.maxLength(2000))),
    channel: HumanInputChannelSchema,
    requestedAt: z.iso.datetime(),
  }),
);
export type PauseRequestedDetail = z.infer<typeof PauseRequestedDetailSchema>;

/**
 * `detail` of `Resume Requested`: wake a paused goal with a new run, or withdraw a pause request
 * the goal has not reached yet.
 */
export const ResumeRequestedDetailSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string().check(z.minLength(1)),
    requestedBy: z.string().check(z.minLength(1)),
    channel: HumanInputChannelSchema,
    requestedAt: z.iso.datetime(),
  }),
);
export type ResumeRequestedDetail = z.infer<typeof ResumeRequestedDetailSchema>;

/** `detail` of `Retry Requested`: run a failed goal again, by redrive or in a new run. */
export const RetryRequestedDetailSchema = ResumeRequestedDetailSchema;
export type RetryRequestedDetail = z.infer<typeof RetryRequestedDetailSchema>;

/** `detail` of `Cancel Requested`: end any non-final goal (the same fields as a pause's). */
export const CancelRequestedDetailSchema = PauseRequestedDetailSchema;
export type CancelRequestedDetail = z.infer<typeof CancelRequestedDetailSchema>;

/** One human input as the bus carries it: `detailType` tells which `detail` schema applies. */
export const HumanInputEventSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.discriminatedUnion("detailType", [
    z.object({
      detailType: z.literal(HUMAN_INPUT_DETAIL_TYPES.approvalDecided),
      detail: ApprovalDecidedDetailSchema,
    }),
    z.object({
      detailType: z.literal(HUMAN_INPUT_DETAIL_TYPES.revisionRequested),
      detail: RevisionRequestedDetailSchema,
    }),
    z.object({
      detailType: z.literal(HUMAN_INPUT_DETAIL_TYPES.pauseRequested),
      detail: PauseRequestedDetailSchema,
    }),
    z.object({
      detailType: z.literal(HUMAN_INPUT_DETAIL_TYPES.resumeRequested),
      detail: ResumeRequestedDetailSchema,
    }),
    z.object({
      detailType: z.literal(HUMAN_INPUT_DETAIL_TYPES.retryRequested),
      detail: RetryRequestedDetailSchema,
    }),
    z.object({
      detailType: z.literal(HUMAN_INPUT_DETAIL_TYPES.cancelRequested),
      detail: CancelRequestedDetailSchema,
    }),
  ]),
);
export type HumanInputEvent = z.infer<typeof HumanInputEventSchema>;

/** The EventBridge envelope fields the resume handler reads (`detail-type`, `detail`). */
export const HumanInputEnvelopeSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    source: z.literal(HUMAN_INPUT_SOURCE),
    "detail-type": z.string(),
    detail: z.unknown(),
  }),
);

/** Parses an EventBridge event on the bus into a HumanInputEvent; throws ValidationError when malformed. */
export function humanInputEventFrom(envelope: z.infer<typeof HumanInputEnvelopeSchema>): HumanInputEvent {
  return parseOrThrow(
    HumanInputEventSchema,
    { detailType: envelope["detail-type"], detail: envelope.detail },
    "human input event",
  );
}
