import { CfnOutput, type RemovalPolicy, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { GoalEventBus } from "./constructs/goal-event-bus";
import { GoalTable } from "./constructs/goal-table";

export interface GoalLoopsStackProps extends StackProps {
  /**
   * What happens to the goal table and its key when they leave the stack.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The goal-loops stack. It only composes constructs, one per concern: the goal store and the
 * human-input bus today; the loop state machines, their Lambdas and the API plug in beside them
 * and are wired to these through grants (`goalTable.grantReadWriteData(fn)`,
 * `goalEventBus.grantPutEvents(fn)`).
 *
 * Construct IDs and output names are a public contract: renaming one replaces the resource.
 */
export class GoalLoopsStack extends Stack {
  readonly goalTable: GoalTable;
  readonly goalEventBus: GoalEventBus;

  constructor(scope: Construct, id: string, props: GoalLoopsStackProps = {}) {
    super(scope, id, props);

    this.goalTable = new GoalTable(this, "GoalTable", { removalPolicy: props.removalPolicy });
    this.goalEventBus = new GoalEventBus(this, "GoalEventBus");

    new CfnOutput(this, "GoalTableName", {
      description: "DynamoDB table holding goals, their event logs, checkpoints and approvals",
      value: this.goalTable.table.tableName,
    });
    new CfnOutput(this, "GoalEventBusName", {
      description: "EventBridge bus that carries human inputs (approvals, revisions, resumes, cancellations)",
      value: this.goalEventBus.eventBus.eventBusName,
    });
  }
}
