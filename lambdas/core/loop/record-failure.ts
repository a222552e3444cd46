import * as z from "zod";
import { FIRST_TASK } from "../goal/create-goal";
import { fail } from "../goal/goal-lifecycle";
import type { StopReason } from "../goal/goal-record";
import { clip } from "../goal/text";
import { parseModelCallContext } from "../models/model-call";
import type { Clock } from "../ports/clock";
import type { GoalStore } from "../ports/goal-store";
import { updateGoal } from "./update-goal";

/** The `$.error` a Step Functions Catch adds: `Cause` is the Lambda's error JSON, as a string. */
export const StepErrorSchema = z.object({ Error: z.string(), Cause: z.string().optional() });
export type StepError = z.infer<typeof StepErrorSchema>;

const LambdaCauseSchema = z.object({ errorType: z.string().optional(), errorMessage: z.string() });

/** Longest message kept in the stop reason; the full one stays in the execution history. */
const MAX_MESSAGE = 2000;

export interface FailureInput {
  readonly goalId: string;
  readonly runId: string;
  readonly error: StepError;
}

export interface RecordFailurePorts {
  readonly goals: GoalStore;
  readonly now: Clock;
}

export interface RecordFailureOptions {
  /** Error names no retry fixes (fatal model errors, validation): stop reason kind `fatal_error`. */
  readonly fatalErrorNames: ReadonlySet<string>;
}

/** The error's message: a Lambda error's `errorMessage`, else the Cause as it came, else the name. */
export function failureMessage(error: StepError): string {
  if (error.Cause === undefined || error.Cause === "") return error.Error;
  try {
    const parsed = LambdaCauseSchema.safeParse(JSON.parse(error.Cause));
    if (parsed.success) return parsed.data.errorMessage;
  } catch {
    // Not JSON (a States.* error or a timeout): the Cause is the message.
  }
  return error.Cause;
}

/** The stop reason a caught error becomes; `role` when a model call failed (its message names it). */
export function failureStopReason(error: StepError, options: RecordFailureOptions): Omit<StopReason, "at"> {
  const message = failureMessage(error);
  const context = parseModelCallContext(message);
  return {
    kind: options.fatalErrorNames.has(error.Error) ? "fatal_error" : "infrastructure",
    detail: error.Error,
    message: clip(message, MAX_MESSAGE),
    ...(context ? { role: context.role } : {}),
  };
}

/**
 * RecordFailure (the Catch path of every task): marks the goal `failed` with the error as its stop
 * reason (`goal.failed`). Nothing happens when the goal already ended or failed, or belongs to another
 * run — except a failed ContinueAsNew: the goal was handed to the new run that then never started
 * (it is still at its first task), so the failure is the goal's.
 */
export async function recordFailure(
  ports: RecordFailurePorts,
  options: RecordFailureOptions,
  input: FailureInput,
): Promise<{ readonly recorded: boolean }> {
  const loaded = await ports.goals.getGoal(input.goalId);
  if (!loaded) return { recorded: false };
  const reason = failureStopReason(input.error, options);
  const now = ports.now();
  let recorded = false;
  await updateGoal(ports.goals, loaded, (current) => {
    const open = current.status === "running" || current.status === "waiting";
    const ours =
      current.runId === input.runId ||
      (current.previousRunId === input.runId &&
        current.activeTask === FIRST_TASK &&
        current.loop?.runId !== current.runId);
    recorded = open && ours;
    return recorded ? fail(current, reason, now) : undefined;
  });
  return { recorded };
}
