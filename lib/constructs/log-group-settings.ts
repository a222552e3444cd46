import { type IAspect, RemovalPolicy } from "aws-cdk-lib";
import { CfnLogGroup } from "aws-cdk-lib/aws-logs";
import type { IConstruct } from "constructs";
import type { LogRetentionDays, RemovalChoice } from "../config/deployment-config";

export interface LogGroupSettingsProps {
  /** How many days each log group keeps its lines. */
  readonly retentionDays: LogRetentionDays;
  /** Whether a log group outlives the stack (`retain`) or is deleted with it (`destroy`). */
  readonly removal: RemovalChoice;
}

/**
 * Gives every CloudWatch log group under the construct it is added to the configuration's retention
 * and removal policy (`logs.*`). An aspect rather than a prop threaded through every construct, so
 * a log group added anywhere under `GoalLoops` (a new function, a new construct) is covered without
 * anyone remembering to pass it on.
 */
export class LogGroupSettings implements IAspect {
  constructor(private readonly props: LogGroupSettingsProps) {}

  visit(node: IConstruct): void {
    if (!(node instanceof CfnLogGroup)) return;
    node.retentionInDays = this.props.retentionDays;
    node.applyRemovalPolicy(this.props.removal === "destroy" ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN);
  }
}
