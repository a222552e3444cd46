import type { IChainable } from "aws-cdk-lib/aws-stepfunctions";
import type { GoalLoopFunction } from "./goal-loop-function";
import { LOOP_STATES, type LoopDefinition } from "./loop-definition";

/** State names: the contract with the handlers and the local runtime (renaming one is breaking). */
export const REFLEXION_STATES = {
  ...LOOP_STATES,
  evaluate: "Evaluate",
  reflect: "Reflect",
  attempt: "Attempt",
} as const;

/** The Reflexion pattern's own Lambda steps. */
export interface ReflexionPatternFunctions {
  /** Evaluates the last attempt against the success checks (`evaluate` calls) and decides. */
  readonly evaluate: GoalLoopFunction;
  /** Draws a lesson from a failed attempt (`reflect` call) and stores it on the goal. */
  readonly reflect: GoalLoopFunction;
  /** The next attempt (`attempt` call) with every stored lesson, and its tool calls unless gated. */
  readonly attempt: GoalLoopFunction;
}

/**
 * The Reflexion state machine's definition on the shared skeleton: LoadGoal → NextAction →
 * Evaluate → (Reflect →) Attempt → Evaluate …, each of the pattern's steps answering the
 * NextAction Choice (Attempt runs the turn's tool calls itself; a gated turn goes AwaitApproval →
 * Act). A failed attempt costs three pattern transitions (Evaluate, Reflect, Attempt) plus the Choices.
 */
export function reflexionDefinition(definition: LoopDefinition, fns: ReflexionPatternFunctions): IChainable {
  const evaluate = definition.step(REFLEXION_STATES.evaluate, fns.evaluate);
  const reflect = definition.step(REFLEXION_STATES.reflect, fns.reflect);
  const attempt = definition.step(REFLEXION_STATES.attempt, fns.attempt);
  return definition.route({ verify: evaluate, reflect, attempt }, [evaluate, reflect, attempt]);
}
