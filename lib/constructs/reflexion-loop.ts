import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import { PatternLoop, type PatternLoopProps } from "./pattern-loop";
import { type ReflexionPatternFunctions, reflexionDefinition } from "./reflexion-definition";

export type ReflexionLoopProps = PatternLoopProps;

/**
 * The Reflexion loop (DESIGN §2): attempt → evaluate against the success checks → reflect (a short
 * lesson stored on the goal) → retry with every lesson in context, up to `maxAttempts`, as a
 * Standard state machine (JSONPath only) whose Lambda steps keep all goal state in the goal table
 * and pass only `{goalId, runId, iteration, next}` between states.
 *
 * Least privilege: every step reads and writes the table; only Evaluate, Reflect and Attempt may call
 * Bedrock, and only the allowed models; the shared ContinueAsNew may start only this pattern's machines.
 */
export class ReflexionLoop extends PatternLoop {
  readonly stateMachine: StateMachine;
  /** The pattern's own steps; the shared ones are in `steps.functions`. */
  readonly functions: ReflexionPatternFunctions;

  constructor(scope: Construct, id: string, props: ReflexionLoopProps) {
    super(scope, id, props, {
      pattern: "reflexion",
      constructName: "ReflexionLoop",
      nameSuffix: "reflexion",
      comment:
        "goal-loops Reflexion: attempt, evaluate, reflect, retry with every lesson, until the success checks have evidence",
    });
    this.functions = {
      evaluate: this.modelStep("Evaluate", {
        bundle: "evaluate",
        description: "goal-loops Reflexion Evaluate: turn the last attempt into evidence, judge, decide",
      }),
      reflect: this.modelStep("Reflect", {
        bundle: "reflect",
        description: "goal-loops Reflexion Reflect: draw a lesson from the failed attempt and store it",
      }),
      attempt: this.actingModelStep("Attempt", {
        bundle: "attempt",
        description:
          "goal-loops Reflexion Attempt: call the model with every lesson for the next attempt, act unless gated",
      }),
    };
    this.stateMachine = this.createStateMachine((definition) =>
      reflexionDefinition(definition, this.functions),
    );
  }
}
