import type { OnAbandon } from "../../goal/goal-spec";
import { isFinal } from "../../goal/goal-status";
import { MAX_SAGA_STEPS } from "../../goal/saga";
import { updateGoal } from "../update-goal";
import { runSaga, type SagaPorts, startSaga } from "./saga";

/** The id of the saga an abandoned goal runs: one per goal, so a redelivered end event resumes it. */
export const ABANDON_SAGA_ID = "saga-abandoned";

export type AbandonOutcome =
  | { readonly outcome: "compensated"; readonly sagaId: string; readonly undone: number }
  | { readonly outcome: "ignored"; readonly reason: string };

/**
 * A plan_execute goal ended `terminated` or `cancelled`: when its `onAbandon` (the GoalSpec's, else
 * the deployment's `compensation.onAbandon`) is `compensate`, the saga of its completed steps runs,
 * newest first (`runSaga`), on the ended goal. Started once; a repeat resumes where it stopped.
 */
export async function compensateAbandoned(
  ports: SagaPorts,
  goalId: string,
  deploymentDefault: OnAbandon,
): Promise<AbandonOutcome> {
  const loaded = await ports.goals.getGoal(goalId);
  if (!loaded) return { outcome: "ignored", reason: `goal ${goalId} does not exist` };
  const { record } = loaded;
  const abandoned = record.status === "terminated" || record.status === "cancelled";
  if (record.pattern !== "plan_execute" || !abandoned) {
    return {
      outcome: "ignored",
      reason: `a ${record.pattern} goal that is ${record.status} is not abandoned work`,
    };
  }
  const onAbandon = record.spec.onAbandon ?? deploymentDefault;
  if (onAbandon !== "compensate") return { outcome: "ignored", reason: `onAbandon is ${onAbandon}` };
  if (record.saga?.sagaId === ABANDON_SAGA_ID && record.saga.status === "completed") {
    return { outcome: "compensated", sagaId: ABANDON_SAGA_ID, undone: record.saga.undone };
  }
  const newest = (await ports.stepLog.listRecentSteps(goalId, 1))[0]?.step ?? record.steps;
  const now = ports.now();
  const started = await updateGoal(ports.goals, loaded, (current) =>
    startSaga(
      current,
      {
        sagaId: ABANDON_SAGA_ID,
        trigger: "abandoned",
        fromStep: Math.max(1, newest - MAX_SAGA_STEPS + 1),
        toStep: newest,
      },
      now,
    ),
  );
  const done = await runSaga(ports, started, { mayChange: (current) => isFinal(current.status) });
  return { outcome: "compensated", sagaId: ABANDON_SAGA_ID, undone: done.record.saga?.undone ?? 0 };
}
