import { DynamoDBDocumentClient, paginateScan } from "@aws-sdk/lib-dynamodb";
import { DynamoDbGoalStore } from "../../lambdas/adapters/dynamodb-goal-store";
import { goalKey, statusPrefix } from "../../lambdas/adapters/goal-table-keys";
import { TABLE_DESIGN } from "../../lambdas/adapters/table-design";
import { executionName } from "../../lambdas/core/loop/continue-as-new";
import { type ReattachedGoal, reattachGoal } from "../../lambdas/core/loop/reattach-goal";
import type { CloudAssemblyModel } from "./cloud-assembly-model";
import { localDynamoClient } from "./dynamo";
import type { Execution } from "./execution";
import type { StateMachineRunner } from "./state-machine-runner";

export interface ReattachGoalsOptions {
  readonly dynamodbEndpoint: string;
  readonly model: CloudAssemblyModel;
  readonly runner: Pick<StateMachineRunner, "startExecution" | "tokens">;
  /** How long to wait for a waiting goal's new run to hold its approval again. @default 30 s */
  readonly settleTimeoutMs?: number;
  readonly now?: () => Date;
  readonly log?: (line: string) => void;
}

const PK = TABLE_DESIGN.partitionKey;
const GOAL_PK_PREFIX = goalKey("")[PK] ?? "GOAL#";
const GOAL_SK = goalKey("")[TABLE_DESIGN.sortKey] ?? "GOAL";

/**
 * After a restart on a kept state folder: every goal that was `running` or `waiting` lost its run
 * with the process that ran it. Each gets a new run (`reattachRun`: a waiting goal keeps waiting on
 * the same approval) and that run's execution is started on its pattern's state machine, so a
 * pending approval can still be answered. Returns the goals re-attached.
 */
export async function reattachGoals(options: ReattachGoalsOptions): Promise<ReattachedGoal[]> {
  const { model, runner, log = console.log } = options;
  const now = options.now ?? (() => new Date());
  const client = DynamoDBDocumentClient.from(localDynamoClient(options.dynamodbEndpoint), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const reattached: ReattachedGoal[] = [];
  for (const { tableName } of model.tables) {
    const goals = new DynamoDbGoalStore({ client, tableName });
    for (const goalId of await liveGoalIds(client, tableName)) {
      const goal = await reattachGoal({ goals, now }, goalId);
      if (!goal) continue;
      const stateMachine = stateMachineFor(model, goal.pattern);
      if (!stateMachine) {
        log(
          `goal ${goalId} (${goal.status}) has no state machine for pattern '${goal.pattern}'; not re-attached`,
        );
        continue;
      }
      const execution = runner.startExecution(
        stateMachine.arn,
        { goalId, runId: goal.runId },
        executionName(goalId, goal.runId),
      );
      if (goal.approvalId !== null) {
        await untilWaitingAgain(goals, runner, execution, goal.approvalId, options.settleTimeoutMs ?? 30_000);
      }
      reattached.push(goal);
      const on = goal.approvalId === null ? "" : ` on approval ${goal.approvalId}`;
      log(`re-attached goal ${goalId} (${goal.status}${on}): run ${goal.previousRunId} → ${goal.runId}`);
    }
  }
  return reattached;
}

/**
 * Until the new run's AwaitApproval holds the approval again (the stored token is the one its
 * execution waits on), so a decision taken right after the start answers the live run, not the dead
 * one. Gives up quietly when the execution stops or the time is over. The token is compared here,
 * never printed.
 */
async function untilWaitingAgain(
  goals: DynamoDbGoalStore,
  runner: Pick<StateMachineRunner, "tokens">,
  execution: Execution,
  approvalId: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (execution.isRunning() && Date.now() < deadline) {
    const waiting = new Set(
      runner.tokens
        .pending()
        .filter((task) => task.executionArn === execution.executionArn)
        .map((task) => task.token),
    );
    const approval = waiting.size > 0 ? await goals.getApproval(approvalId) : undefined;
    if (approval === undefined && waiting.size > 0) return;
    if (approval !== undefined && waiting.has(approval.taskToken)) return;
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 50));
  }
}

/** Goal items (sort key `GOAL`) whose status (in the status index key) is `running` or `waiting`. */
async function liveGoalIds(client: DynamoDBDocumentClient, tableName: string): Promise<string[]> {
  const ids: string[] = [];
  const pages = paginateScan(
    { client },
    {
      TableName: tableName,
      FilterExpression:
        "#sk = :goal AND begins_with(#pk, :prefix) AND (begins_with(#status, :running) OR begins_with(#status, :waiting))",
      ExpressionAttributeNames: {
        "#sk": TABLE_DESIGN.sortKey,
        "#pk": PK,
        "#status": TABLE_DESIGN.statusIndex.sortKey,
      },
      ExpressionAttributeValues: {
        ":goal": GOAL_SK,
        ":prefix": GOAL_PK_PREFIX,
        ":running": statusPrefix("running"),
        ":waiting": statusPrefix("waiting"),
      },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const pk = item[PK];
      if (typeof pk === "string") ids.push(pk.slice(GOAL_PK_PREFIX.length));
    }
  }
  return ids;
}

/**
 * The pattern's state machine, as the stack wired it: the STATE_MACHINE_ARNS map the API and the
 * resume handler read (pattern → ARN), else the one named `…-<pattern>` (`plan_execute` as `plan-execute`).
 */
function stateMachineFor(model: CloudAssemblyModel, pattern: string) {
  for (const fn of model.functions) {
    const wiring = fn.environment.STATE_MACHINE_ARNS;
    if (wiring === undefined) continue;
    const arn: unknown = (JSON.parse(wiring) as Record<string, unknown>)[pattern];
    const machine = model.stateMachines.find((candidate) => candidate.arn === arn);
    if (machine) return machine;
  }
  const suffix = `-${pattern.replaceAll("_", "-")}`;
  return model.stateMachines.find((machine) => machine.name.endsWith(suffix));
}
