import {
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  SchedulerClient,
  UpdateScheduleCommand,
} from "@aws-sdk/client-scheduler";
import { GoalLoopsError } from "../../core/goal/errors";
import { DEADLINE_REACHED, DEADLINE_SOURCE } from "../../core/loop/gates/deadline";
import type { DeadlineSchedule } from "../../core/ports/deadline-schedule";

/** Where the deadline schedules live and what they fire: the stack's group, role and bus. */
export interface DeadlineScheduleSettings {
  /** DEADLINE_SCHEDULE_GROUP */
  readonly groupName: string;
  /** DEADLINE_SCHEDULER_ROLE_ARN: the role EventBridge Scheduler assumes to put the event. */
  readonly roleArn: string;
  /** GOAL_EVENT_BUS_ARN: the bus the resume handler's rule listens on. */
  readonly eventBusArn: string;
  /** DEADLINE_DEAD_LETTER_ARN: where a delivery Scheduler gives up on goes (never dropped). */
  readonly deadLetterArn?: string;
}

/** Scheduler retries a failed delivery this long and this often (its maxima), then dead-letters it. */
const DELIVERY_RETRY = { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 } as const;

/** EventBridge Scheduler could not be asked to set a goal's deadline. */
export class DeadlineScheduleError extends GoalLoopsError {
  override readonly name = "DeadlineScheduleError";
}

/** A deadline this close (or past) is scheduled this far ahead, so `at()` is not in the past on arrival. */
const SOONEST_MS = 2_000;
/** If Scheduler still finds it in the past (a slow request), the retry aims this far ahead. */
const RETRY_AHEAD_MS = 60_000;

/**
 * One EventBridge Scheduler schedule per goal (`deadline-<goalId>`), `at()` its deadline in UTC, that
 * puts `Deadline Reached` on the goal bus and deletes itself after. Setting it again updates it.
 * Scheduler fires within the minute of `at()`; a deadline already past fires as soon as it can.
 */
export function schedulerDeadlines(
  client: SchedulerClient,
  settings: DeadlineScheduleSettings,
  now: () => Date = () => new Date(),
): DeadlineSchedule {
  const input = (goalId: string, deadline: string, at: number): CreateScheduleCommandInput => ({
    Name: `deadline-${goalId}`,
    GroupName: settings.groupName,
    // at() has whole seconds: rounded up, so it never fires before the deadline.
    ScheduleExpression: `at(${new Date(Math.ceil(at / 1000) * 1000).toISOString().slice(0, 19)})`,
    ScheduleExpressionTimezone: "UTC",
    FlexibleTimeWindow: { Mode: "OFF" },
    ActionAfterCompletion: "DELETE",
    Target: {
      Arn: settings.eventBusArn,
      RoleArn: settings.roleArn,
      Input: JSON.stringify({ goalId, deadline }),
      EventBridgeParameters: { Source: DEADLINE_SOURCE, DetailType: DEADLINE_REACHED },
      RetryPolicy: DELIVERY_RETRY,
      ...(settings.deadLetterArn === undefined ? {} : { DeadLetterConfig: { Arn: settings.deadLetterArn } }),
    },
  });
  // Create, or update the one a previous set made (ConflictException).
  const put = async (command: CreateScheduleCommandInput) => {
    try {
      await client.send(new CreateScheduleCommand(command));
    } catch (error) {
      if (errorName(error) !== "ConflictException") throw error;
      await client.send(new UpdateScheduleCommand(command));
    }
  };
  return {
    async set(goalId, deadline) {
      const soonest = now().getTime() + SOONEST_MS;
      try {
        await put(input(goalId, deadline, Math.max(Date.parse(deadline), soonest)));
      } catch (error) {
        if (errorName(error) !== "ValidationException" || Date.parse(deadline) > soonest + RETRY_AHEAD_MS) {
          throw new DeadlineScheduleError(
            `EventBridge Scheduler did not set the deadline of ${goalId}: ${errorName(error)}`,
            { cause: error },
          );
        }
        await put(input(goalId, deadline, now().getTime() + RETRY_AHEAD_MS)).catch((retry: unknown) => {
          throw new DeadlineScheduleError(
            `EventBridge Scheduler did not set the deadline of ${goalId}: ${errorName(retry)}`,
            { cause: retry },
          );
        });
      }
    },
  };
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "UnknownError";
}

/**
 * The deadline schedule from a function's environment (DEADLINE_SCHEDULE_GROUP,
 * DEADLINE_SCHEDULER_ROLE_ARN, GOAL_EVENT_BUS_ARN, DEADLINE_DEAD_LETTER_ARN), or undefined when the
 * stack wires none. The client honours AWS_ENDPOINT_URL_SCHEDULER (the local stack's scheduler).
 */
export function deadlineScheduleFromEnv(env: NodeJS.ProcessEnv = process.env): DeadlineSchedule | undefined {
  const groupName = env.DEADLINE_SCHEDULE_GROUP;
  const roleArn = env.DEADLINE_SCHEDULER_ROLE_ARN;
  const eventBusArn = env.GOAL_EVENT_BUS_ARN;
  const deadLetterArn = env.DEADLINE_DEAD_LETTER_ARN;
  if (!groupName || !roleArn || !eventBusArn) return undefined;
  return schedulerDeadlines(new SchedulerClient({ region: env.AWS_REGION }), {
    groupName,
    roleArn,
    eventBusArn,
    ...(deadLetterArn ? { deadLetterArn } : {}),
  });
}
