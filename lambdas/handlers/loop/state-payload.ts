import * as z from "zod";
import { StepErrorSchema } from "../../core/loop/record-failure";
import { NEXT_STEPS } from "../../core/loop/step-result";

/**
 * The payload every loop state of all three patterns passes on: `{goalId, runId, iteration, next}`.
 * The execution input is only `{goalId, runId}`, so LoadGoal sees no iteration or next. Extra
 * fields are ignored.
 */
export const StatePayloadSchema = z.object({
  goalId: z.string().min(1),
  runId: z.string().min(1),
  iteration: z.number().int().min(0).default(0),
  next: z.enum(NEXT_STEPS).optional(),
  /** Observe's `replan_cooldown` answer: the seconds the ReplanCooldown Wait state waits (SecondsPath). */
  cooldownSeconds: z.number().int().min(0).optional(),
});
export type StatePayload = z.infer<typeof StatePayloadSchema>;

/**
 * LoadGoal's payload: the execution input `{goalId, runId}` with the deployed version the state
 * machine's first state (RunsOnVersion) adds from its definition.
 */
export const LoadGoalPayloadSchema = StatePayloadSchema.extend({
  version: z.string().min(1).max(128).optional(),
});

/** ContinueAsNew's payload adds the running state machine's ARN (`$$.StateMachine.Id`). */
export const ContinueAsNewPayloadSchema = StatePayloadSchema.extend({
  stateMachineArn: z.string().min(1),
});
export type ContinueAsNewPayload = z.infer<typeof ContinueAsNewPayloadSchema>;

/**
 * RecordFailure's payload: the failed state's input plus the Catch's `$.error`. `next` is whatever
 * the failed state received, possibly a value no route knows, so it is not checked here.
 */
export const FailurePayloadSchema = StatePayloadSchema.extend({
  next: z.string().optional(),
  error: StepErrorSchema,
});
export type FailurePayload = z.infer<typeof FailurePayloadSchema>;

/** AwaitApproval's payload: the position, what to ask for, and the task token (stored, never logged). */
export const RequestApprovalPayloadSchema = StatePayloadSchema.extend({
  next: z.enum(["approval", "limit_decision", "decision"]),
  taskToken: z.string().min(1).max(2048),
});
export type RequestApprovalPayload = z.infer<typeof RequestApprovalPayloadSchema>;

/** AwaitSubgoals' payload: the position and the task token the parent waits on (stored, never logged). */
export const AwaitSubgoalsPayloadSchema = StatePayloadSchema.extend({
  next: z.literal("subgoal"),
  taskToken: z.string().min(1).max(2048),
});
export type AwaitSubgoalsPayload = z.infer<typeof AwaitSubgoalsPayloadSchema>;
