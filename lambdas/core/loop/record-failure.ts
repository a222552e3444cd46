import { FIRST_TASK } from "../goal/create-goal";
import { goalEvent, settle } from "../goal/goal-change";
import { fail, terminate } from "../goal/goal-lifecycle";
import type { StopReason } from "../goal/goal-record";
import { clip } from "../goal/text";
import { parseModelCallContext } from "../models/model-call";
import type { Clock } from "../ports/clock";
import type { GoalStore } from "../ports/goal-store";
import * as z from "../zod";
import { nextOnLoad } from "./load-goal";
import { isRunningIn, type StepResult } from "./step-result";
import { updateGoal } from "./update-goal";

/** The `$.error` a Step Functions Catch adds: `Cause` is the Lambda's error JSON, as a string. */
export const StepErrorSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ Error: z.string(), Cause: z.optional(z.string()) }),
);
export type StepError = z.infer<typeof StepErrorSchema>;

const LambdaCauseSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ errorType: z.optional(z.string()), errorMessage: z.string() }),
);

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
  /**
   * Fatal errors that end the goal `terminated` rather than `failed` (DESIGN §3: a fatal model
   * error); the other fatal ones (a bad configuration) leave it `failed`, to retry once fixed.
   */
  readonly terminatingErrorNames: ReadonlySet<string>;
}

/**
 * What RecordFailure did: `failed` (the execution fails too, so it can be redriven), `terminated`
 * (a fatal model error ended the goal), `ignored` (the goal belongs to another run or had ended),
 * or `redriven` (a retry redrove this run: the loop goes on from `next`).
 */
export type FailureOutcome =
  | { readonly outcome: "failed" | "terminated" | "ignored" }
  | { readonly outcome: "redriven"; readonly next: StepResult };

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
export function failureStopReason(
  error: StepError,
  options: Pick<RecordFailureOptions, "fatalErrorNames">,
): Omit<StopReason, "at"> {
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
 * reason (`goal.failed`), or `terminated` for a fatal model error. Nothing happens when the goal
 * already ended or failed, or belongs to another run — except a failed ContinueAsNew: the goal was
 * handed to the new run that then never started (it is still at its first task), so the failure is
 * the goal's.
 *
 * The same state runs again when a retry redrives the failed execution (Step Functions re-runs the
 * state it failed in, with the same input): the goal is running in this run again (`retry` marked
 * it `redriving`), so it is handed back to the loop where LoadGoal would send it, once.
 */
export async function recordFailure(
  ports: RecordFailurePorts,
  options: RecordFailureOptions,
  input: FailureInput,
): Promise<FailureOutcome> {
  const loaded = await ports.goals.getGoal(input.goalId);
  if (!loaded) return { outcome: "ignored" };
  const reason = failureStopReason(input.error, options);
  const terminates = options.terminatingErrorNames.has(input.error.Error);
  const now = ports.now();
  // Set by the change that was committed (updateGoal may apply it again after a conflict).
  const decided: { outcome: FailureOutcome["outcome"] } = { outcome: "ignored" };
  const { record } = await updateGoal(ports.goals, loaded, (current) => {
    if (current.redriving === input.runId && isRunningIn(current, input.runId)) {
      decided.outcome = "redriven";
      return settle({ ...current, redriving: undefined, updatedAt: now.toISOString() }, [
        goalEvent(current, "run.redriven", now, { iteration: current.runIteration }),
      ]);
    }
    const open = current.status === "running" || current.status === "waiting";
    const ours =
      current.runId === input.runId ||
      (current.previousRunId === input.runId &&
        current.activeTask === FIRST_TASK &&
        current.loop?.runId !== current.runId);
    decided.outcome = !open || !ours ? "ignored" : terminates ? "terminated" : "failed";
    if (decided.outcome === "ignored") return undefined;
    return terminates ? terminate(current, reason, now) : fail(current, reason, now);
  });
  if (decided.outcome !== "redriven") return { outcome: decided.outcome };
  const position = { goalId: record.goalId, runId: record.runId, iteration: record.runIteration };
  return { outcome: "redriven", next: { ...position, next: nextOnLoad(record, now) } };
}
