import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import type { GoalLoopFunction } from "./goal-loop-function";
import { PatternLoop, type PatternLoopProps } from "./pattern-loop";
import { type ReactPatternFunctions, reactDefinition } from "./react-definition";

export type ReactLoopProps = PatternLoopProps;

/**
 * The ReAct loop (DESIGN §2): reason → (approval gate when an action needs it) → act → verify, as a
 * Standard state machine (JSONPath only) whose Lambda steps keep all goal state in the goal table
 * and pass only `{goalId, runId, iteration, next}` between states.
 *
 * An iteration whose turn needs no approval is one VerifyAndReason invocation (it acts itself); a
 * gated turn goes through AwaitApproval to the shared Act.
 *
 * Least privilege: every step reads and writes the table; only VerifyAndReason may call Bedrock,
 * and only the allowed models; the shared ContinueAsNew may start only this pattern's machines.
 */
export class ReactLoop extends PatternLoop {
  readonly stateMachine: StateMachine;
  /** The pattern's own step; the shared ones are in `steps.functions`. */
  readonly functions: ReactPatternFunctions;

  constructor(scope: Construct, id: string, props: ReactLoopProps) {
    super(scope, id, props, {
      pattern: "react",
      constructName: "ReactLoop",
      nameSuffix: "react",
      comment: "goal-loops ReAct: reason, act, verify, until the goal's success checks have evidence",
    });
    const verifyAndReason: GoalLoopFunction = this.actingModelStep("VerifyAndReason", {
      bundle: "verify-and-reason",
      description:
        "goal-loops ReAct VerifyAndReason: turn the last act into evidence, decide, call the model, act when no approval is needed",
    });
    this.functions = { verifyAndReason };
    this.stateMachine = this.createStateMachine((definition) => reactDefinition(definition, this.functions));
  }
}
