import { type DynamoDBDocumentClient, paginateScan } from "@aws-sdk/lib-dynamodb";
import { DynamoDbGoalStore } from "../../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { goalKey, statusPrefix } from "../../../lambdas/adapters/dynamodb/goal-table-keys";
import { TABLE_DESIGN } from "../../../lambdas/adapters/dynamodb/table-design";
import { executionArnOf } from "../../../lambdas/adapters/step-functions/sfn-run-stopper";
import { type Pattern, PatternSchema } from "../../../lambdas/core/goal/goal-spec";
import { RecordSchemaTooNewError } from "../../../lambdas/core/goal/record-schema";
import { executionName } from "../../../lambdas/core/loop/continue-as-new";
import { type ReattachedGoal, reviveDeadRun } from "../../../lambdas/core/loop/reattach-goal";
import type { RunRef } from "../../../lambdas/core/ports/run-control";
import type { CloudAssemblyModel } from "../shared/cloud-assembly-model";
import type { Execution } from "./execution";
import type { StateMachineRunner } from "./state-machine-runner";

export interface ReattachGoalsOptions {
  /** A client on the local goal table (localStoreClient: it follows large items into S3). */
  readonly client: DynamoDBDocumentClient;
  readonly model: CloudAssemblyModel;
  readonly runner: Pick<StateMachineRunner, "startExecution" | "describe" | "tokens">;
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
 * with the process that ran it. Each gets a new run (`reviveDeadRun`: a waiting goal keeps waiting on
 * the same approval, a decided gate goes to Act) and that run's execution is started on its
 * pattern's state machine, so a pending approval can still be answered. A goal whose run is live
 * already (a decision revived it while this ran) is left alone. Returns the goals re-attached.
 */
export async function reattachGoals(options: ReattachGoalsOptions): Promise<ReattachedGoal[]> {
  const { model, runner, log = console.log } = options;
  const now = options.now ?? (() => new Date());
  const { client } = options;
  const stateMachineArns = patternStateMachineArns(model);
  const executionOf = (run: RunRef) => runner.describe(executionArnOf(run));
  const reattached: ReattachedGoal[] = [];
  for (const { tableName } of model.tables) {
    const goals = new DynamoDbGoalStore({ client, tableName });
    const ports = {
      goals,
      now,
      stateMachineArns,
      runIsLive: async (run: RunRef) => executionOf(run)?.isRunning() ?? false,
      startRun: async (run: RunRef) => {
        runner.startExecution(
          run.stateMachineArn,
          { goalId: run.goalId, runId: run.runId },
          executionName(run.goalId, run.runId),
        );
      },
    };
    for (const goalId of await liveGoalIds(client, tableName)) {
      const pattern = await patternOf(goals, goalId, log);
      if (pattern === null) continue;
      const stateMachineArn = pattern === undefined ? undefined : stateMachineArns[pattern];
      if (stateMachineArn === undefined) {
        log(`goal ${goalId} has no state machine for pattern '${pattern ?? "?"}'; not re-attached`);
        continue;
      }
      const goal = await reviveDeadRun(ports, goalId);
      if (!goal) continue;
      const execution = executionOf({ stateMachineArn, goalId, runId: goal.runId });
      if (goal.approvalId !== null && execution) {
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
 * The goal's pattern, or null when a newer goal-loops stored its record (a state folder that ran a
 * later version, restarted on this one): this runtime cannot read it, so the goal is left as it is,
 * unread and unwritten, for a goal-loops that reads its schema; the other goals are re-attached.
 */
async function patternOf(
  goals: DynamoDbGoalStore,
  goalId: string,
  log: (line: string) => void,
): Promise<Pattern | undefined | null> {
  try {
    return (await goals.getGoal(goalId))?.record.pattern;
  } catch (error) {
    if (!(error instanceof RecordSchemaTooNewError)) throw error;
    log(`goal ${goalId} not re-attached: ${error.name}: ${error.message}`);
    return null;
  }
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
 * Pattern → the pattern's state machine ARN, as the stack wired it: the STATE_MACHINE_ARNS map the
 * API and the resume handler read, else the machine named `…-<pattern>` (`plan_execute` as
 * `plan-execute`).
 */
function patternStateMachineArns(model: CloudAssemblyModel): Partial<Record<Pattern, string>> {
  const arns: Partial<Record<Pattern, string>> = {};
  for (const pattern of PatternSchema.options) {
    const machine = stateMachineFor(model, pattern);
    if (machine) arns[pattern] = machine.arn;
  }
  return arns;
}

function stateMachineFor(model: CloudAssemblyModel, pattern: Pattern) {
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
