import { CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { GoalLoops, type GoalLoopsProps } from "./goal-loops";

/**
 * The stack's output names: what `cdk deploy` prints and what the local runtime and the CLI read
 * (from `cdk.out` or the deployed stack). Renaming one breaks them.
 */
export const GOAL_LOOPS_OUTPUTS = {
  goalTableName: "GoalTableName",
  goalEventBusName: "GoalEventBusName",
  reactStateMachineArn: "ReactStateMachineArn",
  planExecuteStateMachineArn: "PlanExecuteStateMachineArn",
  reflexionStateMachineArn: "ReflexionStateMachineArn",
  goalsApiUrl: "GoalsApiUrl",
  /** Only with `api.auth.mode: "iam+jwt"`: the same routes for bearer tokens. */
  jwtApiUrl: "JwtApiUrl",
} as const;

export interface GoalLoopsStackProps extends StackProps {
  /**
   * What goal-loops deploys: the configuration (`goal-loops.config.json`) and the construct's own
   * props.
   *
   * @default - every default
   */
  readonly goalLoops?: GoalLoopsProps;
}

/**
 * The goal-loops stack: the `GoalLoops` construct (everything goal-loops deploys) and the outputs
 * the local runtime and the CLI read. `bin/app.ts` gives it `goal-loops.config.json`.
 *
 * Construct IDs and output names are a public contract: renaming one replaces the resource.
 */
export class GoalLoopsStack extends Stack {
  /** Everything goal-loops deploys; its id `Default` keeps the logical ids of before it existed. */
  readonly goalLoops: GoalLoops;

  constructor(scope: Construct, id: string, props: GoalLoopsStackProps = {}) {
    const { goalLoops: goalLoopsProps, ...stackProps } = props;
    super(scope, id, stackProps);
    const goalLoops = new GoalLoops(this, "Default", goalLoopsProps);
    this.goalLoops = goalLoops;

    new CfnOutput(this, GOAL_LOOPS_OUTPUTS.goalTableName, {
      description: "DynamoDB table holding goals, their event logs, checkpoints and approvals",
      value: goalLoops.goalTable.table.tableName,
    });
    new CfnOutput(this, GOAL_LOOPS_OUTPUTS.goalEventBusName, {
      description: "EventBridge bus that carries human inputs (approvals, revisions, resumes, cancellations)",
      value: goalLoops.goalEventBus.eventBus.eventBusName,
    });
    const outputNames = {
      react: GOAL_LOOPS_OUTPUTS.reactStateMachineArn,
      plan_execute: GOAL_LOOPS_OUTPUTS.planExecuteStateMachineArn,
      reflexion: GOAL_LOOPS_OUTPUTS.reflexionStateMachineArn,
    };
    for (const loop of goalLoops.loops) {
      new CfnOutput(this, outputNames[loop.pattern], {
        description: `The ${loop.pattern} loop's state machine`,
        value: loop.stateMachine.stateMachineArn,
      });
    }
    new CfnOutput(this, GOAL_LOOPS_OUTPUTS.goalsApiUrl, {
      description:
        "Base URL of the goals API (IAM-signed requests; with api.auth.mode jwt, bearer tokens): POST /goals, GET /goals …",
      value: goalLoops.goalsApi.url,
    });
    if (goalLoops.goalsApi.jwtUrl !== undefined) {
      new CfnOutput(this, GOAL_LOOPS_OUTPUTS.jwtApiUrl, {
        description:
          "Base URL of the goals API for bearer tokens (Authorization: Bearer <JWT of api.auth.jwt's issuer>): the same routes as GoalsApiUrl",
        value: goalLoops.goalsApi.jwtUrl,
      });
    }
  }
}
