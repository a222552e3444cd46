/**
 * Every human input (approval decision, revision, resume, cancel) becomes one EventBridge event on
 * the stack's bus; API, Slack, email and CLI are only different doors to it (DESIGN §5). These
 * names are the contract between the doors that publish, the rules that match and the resume
 * handler that answers, so they live here once. Pure constants: no AWS SDK import.
 */

/** The `source` of every human-input event. */
export const HUMAN_INPUT_SOURCE = "goal-loops.human";

/** The `detail-type` of each kind of human input. */
export const HUMAN_INPUT_DETAIL_TYPES = {
  approvalDecided: "Approval Decided",
  revisionRequested: "Revision Requested",
  resumeRequested: "Resume Requested",
  cancelRequested: "Cancel Requested",
} as const;

export type HumanInputDetailType = (typeof HUMAN_INPUT_DETAIL_TYPES)[keyof typeof HUMAN_INPUT_DETAIL_TYPES];

/** All detail types, e.g. for one rule that routes every human input to the resume handler. */
export const ALL_HUMAN_INPUT_DETAIL_TYPES: readonly HumanInputDetailType[] =
  Object.values(HUMAN_INPUT_DETAIL_TYPES);
