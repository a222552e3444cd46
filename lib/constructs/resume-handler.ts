import { Arn, ArnFormat, Stack } from "aws-cdk-lib";
import { Rule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { SqsDestination } from "aws-cdk-lib/aws-lambda-destinations";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import type { OnAbandon, Pattern } from "../../lambdas/core/goal/goal-spec";
import {
  ALL_HUMAN_INPUT_DETAIL_TYPES,
  HUMAN_INPUT_SOURCE,
} from "../../lambdas/core/human/human-input-events";
import { DEADLINE_REACHED, DEADLINE_SOURCE } from "../../lambdas/core/loop/gates/deadline";
import { GOAL_ENDED, GOAL_ENDED_SOURCE } from "../../lambdas/core/loop/subgoals/goal-ended";
import type { GoalEventBus } from "./goal-event-bus";
import { GoalLoopFunction, type GoalLoopLogLevel } from "./goal-loop-function";
import type { GoalTable } from "./goal-table";
import { acknowledgeGoalTableGrant, acknowledgeWildcardResource } from "./nag-acknowledgments";

export interface ResumeHandlerProps {
  readonly goalTable: GoalTable;
  /** The bus human inputs arrive on; its dead-letter queue keeps what could not be delivered. */
  readonly goalEventBus: GoalEventBus;
  /** The loops whose callback tasks it answers and whose runs it starts (resume) and stops (cancel). */
  readonly stateMachines: Readonly<Partial<Record<Pattern, StateMachine>>>;
  /**
   * What an abandoned plan_execute goal does with its completed steps when its GoalSpec says nothing.
   *
   * @default "keep"
   */
  readonly onAbandon?: OnAbandon;
  /** @default "INFO" */
  readonly logLevel?: GoalLoopLogLevel;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The one resume handler (DESIGN §5): a rule on the goal bus sends every human input
 * (source `goal-loops.human`), every goal's `Deadline Reached` (source `goal-loops.deadline`,
 * from its GoalDeadlines schedule) and every `Goal Ended` (source `goal-loops.goals`: a sub-goal's
 * parent to wake, a parent's children to cancel, an abandoned plan to compensate) to a Lambda that matches it against the waiting goal and answers the
 * task token (SendTaskSuccess), or hands revisions, resumes and cancels to their handlers.
 *
 * Nothing is dropped. EventBridge invokes the function asynchronously: a delivery it cannot make
 * (throttled, function missing) it retries for 24 hours, then puts in the bus's dead-letter queue.
 * A delivery the function accepts but fails on (it throws, or times out) is Lambda's to retry: twice,
 * then the event goes to the same queue through the function's on-failure destination, with the
 * error. Either way the queue's alarm fires and the event can be sent again.
 *
 * Least privilege: the goal store (table and payload bucket); SendTaskSuccess/SendTaskFailure, StartExecution on the given
 * state machines and StopExecution/DescribeExecution/RedriveExecution on their executions. The state machines never reference this
 * function, so granting on their ARNs makes no dependency cycle.
 */
export class ResumeHandler extends Construct {
  readonly function: GoalLoopFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: ResumeHandlerProps) {
    super(scope, id);
    const machines = Object.entries(props.stateMachines).flatMap(([pattern, machine]) =>
      machine ? [[pattern, machine] as const] : [],
    );
    if (machines.length === 0)
      throw new Error("ResumeHandler: stateMachines must name at least one state machine");

    this.function = new GoalLoopFunction(this, "Function", {
      bundle: "resume-handler",
      description:
        "goal-loops resume handler: match human inputs to waiting goals and answer their task tokens",
      logLevel: props.logLevel,
      logRetention: props.logRetention,
      environment: {
        ...props.goalTable.environment,
        STATE_MACHINE_ARNS: Stack.of(this).toJsonString(
          Object.fromEntries(machines.map(([pattern, machine]) => [pattern, machine.stateMachineArn])),
        ),
        ON_ABANDON: props.onAbandon ?? "keep",
      },
    });
    props.goalTable.grantReadWriteData(this.function);
    acknowledgeGoalTableGrant(this.function.role, props.goalTable);

    for (const [, machine] of machines) {
      machine.grantTaskResponse(this.function);
      machine.grantStartExecution(this.function);
      // Cancel stops the goal's current run; a decision whose run is over looks it up and revives it;
      // a retry redrives a failed run: executions of this machine (`…:execution:<name>:*`).
      machine.grantExecution(
        this.function,
        "states:StopExecution",
        "states:DescribeExecution",
        "states:RedriveExecution",
      );
      acknowledgeWildcardResource(
        this.function.role,
        `${Stack.of(this).formatArn({
          service: "states",
          resource: "execution",
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          resourceName: Arn.split(machine.stateMachineArn, ArnFormat.COLON_RESOURCE_NAME).resourceName,
        })}:*`,
        "StopExecution, DescribeExecution and RedriveExecution name an execution, and a goal's run gets its execution at run time (goalId-runId); the wildcard covers only executions of this one state machine.",
      );
    }

    // Without it Lambda drops an event the handler failed on after its two retries: a lost approval
    // or cancel would leave its goal waiting until the timeout, and no alarm would say so.
    this.function.function.configureAsyncInvoke({
      onFailure: new SqsDestination(props.goalEventBus.deadLetterQueue),
      retryAttempts: 2,
    });

    this.rule = new Rule(this, "Rule", {
      eventBus: props.goalEventBus.eventBus,
      description:
        "Every human input (approval decided, revision, resume, retry, cancel), every goal deadline and every goal that ended with someone to tell, to the resume handler",
      eventPattern: {
        source: [HUMAN_INPUT_SOURCE, DEADLINE_SOURCE, GOAL_ENDED_SOURCE],
        detailType: [...ALL_HUMAN_INPUT_DETAIL_TYPES, DEADLINE_REACHED, GOAL_ENDED],
      },
      targets: [
        new LambdaFunction(this.function.function, {
          deadLetterQueue: props.goalEventBus.deadLetterQueue,
          retryAttempts: 185,
        }),
      ],
    });
  }
}
