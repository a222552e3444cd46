import { type IChainable, JsonPath, Wait, WaitTime } from "aws-cdk-lib/aws-stepfunctions";
import type { GoalLoopFunction } from "./goal-loop-function";
import { LOOP_STATES, type LoopDefinition } from "./loop-definition";

/** State names: the contract with the handlers and the local runtime (renaming one is breaking). */
export const PLAN_EXECUTE_STATES = {
  ...LOOP_STATES,
  observe: "Observe",
  plan: "Plan",
  replanCooldown: "ReplanCooldown",
  execute: "Execute",
} as const;

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
 * Act). A replan that follows a replan without any successful step first waits in ReplanCooldown
 * for the `cooldownSeconds` Observe answered (a Wait costs no Lambda and no model).
 */
export function planExecuteDefinition(
  definition: LoopDefinition,
  fns: PlanExecutePatternFunctions,
): IChainable {
  const observe = definition.step(PLAN_EXECUTE_STATES.observe, fns.observe);
  const plan = definition.step(PLAN_EXECUTE_STATES.plan, fns.plan);
  const execute = definition.step(PLAN_EXECUTE_STATES.execute, fns.execute);
  const cooldown = new Wait(definition.stateScope, PLAN_EXECUTE_STATES.replanCooldown, {
    comment: "Slow a replan storm down: the previous replan saw no successful step",
    time: WaitTime.secondsPath(JsonPath.stringAt("$.cooldownSeconds")),
  });
  cooldown.next(plan);
  return definition.route({ verify: observe, plan, execute, replan_cooldown: cooldown }, [
    observe,
    plan,
    execute,
  ]);
}
