import { Arn, Aws, RemovalPolicy, Stack } from "aws-cdk-lib";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { ScheduleGroup } from "aws-cdk-lib/aws-scheduler";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import type { GoalEventBus } from "./goal-event-bus";
import type { GoalLoopFunction } from "./goal-loop-function";
import { acknowledgeWildcardResource } from "./nag-acknowledgments";

export interface GoalDeadlinesProps {
  /**
   * The bus each schedule puts its `Deadline Reached` event on (the resume handler listens there).
   * A delivery EventBridge Scheduler gives up on lands in the bus's dead-letter queue, whose alarm
   * (Operations) says a deadline went unheard.
   */
  readonly goalEventBus: GoalEventBus;
}

/**
 * Goal deadlines that hold while nothing runs (DESIGN §3): a goal waiting for a human or paused runs
 * no step that could check its deadline, so every goal with a deadline gets a one-time EventBridge
 * Scheduler schedule, `at()` the deadline, in this construct's group. It puts `Deadline Reached` on
 * the goal bus, where the resume handler terminates what still waits, and then deletes itself.
 *
 * The group is deleted with the stack, pending schedules with it: they target the stack's own bus,
 * which goes too, and a retained group would keep its fixed name from the next stack.
 *
 * A delivery Scheduler cannot make (the bus refused it, the role lost its permission) is retried
 * for a day, then sent to the goal bus's dead-letter queue, never dropped: that queue's alarm
 * fires, and the message names the goal whose deadline went unheard.
 *
 * Least privilege: the scheduler's role may only put events on the goal bus and send to its
 * dead-letter queue; a function given `grantSetDeadlines` may create and update schedules in this
 * group only, and pass only that role.
 */
export class GoalDeadlines extends Construct {
  readonly scheduleGroup: ScheduleGroup;
  /** The role EventBridge Scheduler assumes to put a deadline event on the bus. */
  readonly schedulerRole: Role;
  /** Where a deadline event Scheduler could not deliver goes: the goal bus's dead-letter queue. */
  readonly deadLetterQueue: IQueue;

  constructor(scope: Construct, id: string, props: GoalDeadlinesProps) {
    super(scope, id);
    this.scheduleGroup = new ScheduleGroup(this, "Group", { removalPolicy: RemovalPolicy.DESTROY });
    this.schedulerRole = new Role(this, "SchedulerRole", {
      assumedBy: new ServicePrincipal("scheduler.amazonaws.com", {
        conditions: { StringEquals: { "aws:SourceAccount": Stack.of(this).account } },
      }),
      description: "EventBridge Scheduler puts goal-loops deadline events on the goal bus",
    });
    props.goalEventBus.grantPutEvents(this.schedulerRole);
    this.deadLetterQueue = props.goalEventBus.deadLetterQueue;
    // Scheduler sends a failed delivery to the dead-letter queue as the schedule's role.
    this.deadLetterQueue.grantSendMessages(this.schedulerRole);
  }

  /** The function's environment names the group, role and bus; it may set schedules and pass the role. */
  grantSetDeadlines(fn: GoalLoopFunction, eventBusArn: string): void {
    fn.addEnvironment({
      DEADLINE_SCHEDULE_GROUP: this.scheduleGroup.scheduleGroupName,
      DEADLINE_SCHEDULER_ROLE_ARN: this.schedulerRole.roleArn,
      DEADLINE_DEAD_LETTER_ARN: this.deadLetterQueue.queueArn,
      GOAL_EVENT_BUS_ARN: eventBusArn,
    });
    // One ARN for the statement and its acknowledgment, so the two cannot drift apart (a
    // `Stack.formatArn` acknowledgment once held `arn:aws:` where the policy held the partition
    // token, and `cdk synth` with a pinned environment failed on it).
    const schedules = this.schedulesArn();
    fn.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["scheduler:CreateSchedule", "scheduler:UpdateSchedule"],
        resources: [schedules],
      }),
    );
    this.schedulerRole.grantPassRole(fn.role);
    acknowledgeWildcardResource(
      fn.role,
      schedules,
      "A goal's deadline schedule is named at run time (deadline-<goalId>); the wildcard covers only schedules in goal-loops' own schedule group.",
    );
  }

  /** Every schedule of the group: `arn:<partition>:scheduler:<region>:<account>:schedule/<group>/*`. */
  private schedulesArn(): string {
    const { region, account } = Stack.of(this);
    return Arn.format({
      partition: Aws.PARTITION,
      region,
      account,
      service: "scheduler",
      resource: "schedule",
      resourceName: `${this.scheduleGroup.scheduleGroupName}/*`,
    });
  }
}
