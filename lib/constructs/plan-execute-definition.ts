import {
  type IChainable,
  JsonPath,
  Map as MapState,
  Pass,
  Wait,
  WaitTime,
} from "aws-cdk-lib/aws-stepfunctions";
import { DEFAULT_PLAN_STEP_CONCURRENCY, MAX_PLAN_STEP_CONCURRENCY } from "../../lambdas/core/goal/plan";
import type { GoalLoopFunction } from "./goal-loop-function";
import { LOOP_STATES, type LoopDefinition } from "./loop-definition";

/** State names: the contract with the handlers and the local runtime (renaming one is breaking). */
export const PLAN_EXECUTE_STATES = {
  ...LOOP_STATES,
  observe: "Observe",
  plan: "Plan",
  replanCooldown: "ReplanCooldown",
  execute: "Execute",
  executeBatch: "ExecuteBatch",
  executeBatchStep: "ExecuteBatchStep",
  executeBatchStepDeferred: "ExecuteBatchStepDeferred",
} as const;

export { DEFAULT_PLAN_STEP_CONCURRENCY, MAX_PLAN_STEP_CONCURRENCY };

/** The Plan-and-Execute pattern's own Lambda steps. */
export interface PlanExecutePatternFunctions {
  /** Verifies and classifies the last step, turns triggers into replans or decisions, decides. */
  readonly observe: GoalLoopFunction;
  /** Makes the plan or a replan (`plan` call, heavy model), validated with zod. */
  readonly plan: GoalLoopFunction;
  /** The executor's turn for one plan step (`execute` call, fast model), and its tool calls unless gated. */
  readonly execute: GoalLoopFunction;
}

/**
 * The Plan-and-Execute state machine's definition on the shared skeleton: LoadGoal → NextAction →
 * Observe → Plan → Observe → Execute → Observe …, each of the pattern's steps answering the
 * NextAction Choice (Execute runs the turn's tool calls itself; a gated turn goes AwaitApproval →
 * Act). When two or more steps are ready, Observe answers `execute_batch`: ExecuteBatch (a Map)
 * makes all their turns at once, then Execute acts on them one step per iteration. A replan that
 * follows a replan without any successful step first waits in ReplanCooldown for the
 * `cooldownSeconds` Observe answered (a Wait costs no Lambda and no model).
 */
export function planExecuteDefinition(
  definition: LoopDefinition,
  fns: PlanExecutePatternFunctions,
  options: { readonly maxConcurrency?: number } = {},
): IChainable {
  const observe = definition.step(PLAN_EXECUTE_STATES.observe, fns.observe);
  const plan = definition.step(PLAN_EXECUTE_STATES.plan, fns.plan);
  const execute = definition.step(PLAN_EXECUTE_STATES.execute, fns.execute);
  const executeBatch = executeBatchState(definition, fns, options.maxConcurrency);
  // The branches made the turns; Execute acts on them one step per iteration.
  executeBatch.next(execute);
  const cooldown = new Wait(definition.stateScope, PLAN_EXECUTE_STATES.replanCooldown, {
    comment: "Slow a replan storm down: the previous replan saw no successful step",
    time: WaitTime.secondsPath(JsonPath.stringAt("$.cooldownSeconds")),
  });
  cooldown.next(plan);
  return definition.route(
    { verify: observe, plan, execute, execute_batch: executeBatch, replan_cooldown: cooldown },
    [observe, plan, execute],
  );
}

/**
 * ExecuteBatch: a Map over Observe's `batch` (the ready steps' ids) whose branches, at most
 * `maxConcurrency` at once, each make one step's executor turn (ExecuteBatchStep, the Execute
 * function given a `stepId`). The branches' answers are dropped: the state's output is its input,
 * the goal table holds what they did. A branch retries like any step; what it cannot get past fails
 * the Map, which RecordFailure records (a redrive runs the batch again; made turns are reused).
 */
function executeBatchState(
  definition: LoopDefinition,
  fns: PlanExecutePatternFunctions,
  maxConcurrency = DEFAULT_PLAN_STEP_CONCURRENCY,
): MapState {
  const map = new MapState(definition.stateScope, PLAN_EXECUTE_STATES.executeBatch, {
    comment: "The executor's turns for every ready plan step at once",
    itemsPath: JsonPath.stringAt("$.batch"),
    itemSelector: {
      goalId: JsonPath.stringAt("$.goalId"),
      runId: JsonPath.stringAt("$.runId"),
      iteration: JsonPath.numberAt("$.iteration"),
      stepId: JsonPath.stringAt("$$.Map.Item.Value"),
    },
    maxConcurrency,
    resultPath: JsonPath.DISCARD,
  });
  // The branch's payload is the item ItemSelector built: the position and the step's id. A branch
  // Lambda's concurrency refuses leaves its turn to Execute, which makes it (and can wait for it).
  const deferred = new Pass(definition.stateScope, PLAN_EXECUTE_STATES.executeBatchStepDeferred, {
    comment: "No Lambda capacity for this turn now: Execute makes it when it reaches the step",
  });
  map.itemProcessor(definition.branchStep(PLAN_EXECUTE_STATES.executeBatchStep, fns.execute, { deferred }));
  definition.catchIntoFailure(map);
  return map;
}
