import {
  GOAL_ENDED,
  GOAL_ENDED_SOURCE,
  type GoalEndedDetail,
  goalEndedSignal,
} from "../../core/loop/subgoals/goal-ended";
import type { GoalStore } from "../../core/ports/goal-store";
import { loadOnce } from "../shared/load-once";

/** Puts one `Goal Ended` event on the stack's bus. */
export type PublishGoalEnded = (detail: GoalEndedDetail) => Promise<void>;

/**
 * `goals` announcing the goals its commits end (`goalEndedSignal`: a sub-goal, a parent with running
 * children, an abandoned plan): after the commit succeeded, a `Goal Ended` event goes on the bus for
 * the resume handler, which wakes the parent, cancels the children, or runs the saga. Whichever step
 * ends a goal (a verify step completing it, a limit decision, a cancel, a deadline) commits through
 * its store, so none can end one silently.
 *
 * A publish that fails is logged and does not fail the step: the goal has ended, and a retried step
 * would find nothing left to commit. The parent's own wait heals a lost event: AwaitSubgoals looks
 * at its children again each time its task's timeout asks it to.
 */
export function withGoalEndedSignals<T extends GoalStore>(
  goals: T,
  publish: PublishGoalEnded,
  onError: (error: unknown, detail: GoalEndedDetail) => void = (error, detail) =>
    console.error("Goal Ended not published", { goalId: detail.goalId, error }),
): T {
  const commit: GoalStore["commit"] = async (record, expectedVersion, events, options) => {
    const committed = await goals.commit(record, expectedVersion, events, options);
    const signal = goalEndedSignal(committed.record, events);
    if (signal) await publish(signal).catch((error: unknown) => onError(error, signal));
    return committed;
  };
  return new Proxy(goals, {
    get(target, property) {
      if (property === "commit") return commit;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * The publisher of the bus named by GOAL_EVENT_BUS_NAME (set on every function that may end a goal),
 * its EventBridge client loaded on the first goal that ends; undefined without the variable.
 */
export function goalEndedPublisherFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): PublishGoalEnded | undefined {
  const busName = env.GOAL_EVENT_BUS_NAME;
  if (busName === undefined || busName.trim() === "") return undefined;
  const client = loadOnce(async () => {
    const { EventBridgeClient } = await import("@aws-sdk/client-eventbridge");
    // No explicit endpoint: the SDK honours AWS_ENDPOINT_URL_EVENTBRIDGE (the local runtime's bus).
    return new EventBridgeClient({ region: env.AWS_REGION });
  });
  return async (detail) => {
    const { PutEventsCommand } = await import("@aws-sdk/client-eventbridge");
    const answer = await (await client()).send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: busName,
            Source: GOAL_ENDED_SOURCE,
            DetailType: GOAL_ENDED,
            Detail: JSON.stringify(detail),
          },
        ],
      }),
    );
    if ((answer.FailedEntryCount ?? 0) > 0) {
      const failed = answer.Entries?.find((entry) => entry.ErrorCode !== undefined);
      throw new Error(
        `EventBridge refused Goal Ended: ${failed?.ErrorCode ?? "unknown"} ${failed?.ErrorMessage ?? ""}`,
      );
    }
  };
}
