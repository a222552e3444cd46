import { StepErrorSchema } from "../../core/loop/record-failure";
import { NEXT_STEPS } from "../../core/loop/step-result";
import * as z from "../../core/zod";

/**
 * The payload every loop state of all three patterns passes on: `{goalId, runId, iteration, next}`.
 * The execution input is only `{goalId, runId}`, so LoadGoal sees no iteration or next. Extra
 * fields are ignored.
 */
export const StatePayloadSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string().check(z.minLength(1)),
    runId: z.string().check(z.minLength(1)),
    iteration: z._default(z.number().check(z.int(), z.gte(0)), 0),
    next: z.optional(z.enum(NEXT_STEPS)),
    /** Observe's `replan_cooldown` answer: the seconds the ReplanCooldown Wait state waits (SecondsPath). */
    cooldownSeconds: z.optional(z.number().check(z.int(), z.gte(0))),
  }),
);
export type StatePayload = z.infer<typeof StatePayloadSchema>;

/**
 * LoadGoal's payload: the execution input `{goalId, runId}` with the deployed version the state
 * machine's first state (RunsOnVersion) adds from its definition.
 */
export const LoadGoalPayloadSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(StatePayloadSchema, {
    version: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  }),
);

/** ContinueAsNew's payload adds the running state machine's ARN (`$$.StateMachine.Id`). */
export const ContinueAsNewPayloadSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(StatePayloadSchema, {
    stateMachineArn: z.string().check(z.minLength(1)),
  }),
);
export type ContinueAsNewPayload = z.infer<typeof ContinueAsNewPayloadSchema>;

/**
 * RecordFailure's payload: the failed state's input plus the Catch's `$.error`. `next` is whatever
 * the failed state received, possibly a value no route knows, so it is not checked here.
 */
export const FailurePayloadSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(StatePayloadSchema, {
    next: z.optional(z.string()),
    error: StepErrorSchema,
  }),
);
export type FailurePayload = z.infer<typeof FailurePayloadSchema>;

/** AwaitApproval's payload: the position, what to ask for, and the task token (stored, never logged). */
export const RequestApprovalPayloadSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(StatePayloadSchema, {
    next: z.enum(["approval", "limit_decision", "decision"]),
    taskToken: z.string().check(z.minLength(1), z.maxLength(2048)),
  }),
);
export type RequestApprovalPayload = z.infer<typeof RequestApprovalPayloadSchema>;

/** AwaitSubgoals' payload: the position and the task token the parent waits on (stored, never logged). */
export const AwaitSubgoalsPayloadSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.extend(StatePayloadSchema, {
    next: z.literal("subgoal"),
    taskToken: z.string().check(z.minLength(1), z.maxLength(2048)),
  }),
);
export type AwaitSubgoalsPayload = z.infer<typeof AwaitSubgoalsPayloadSchema>;
