import type { IChainable } from "aws-cdk-lib/aws-stepfunctions";
import type { GoalLoopFunction } from "./goal-loop-function";
import { LOOP_STATES, type LoopDefinition } from "./loop-definition";

/** State names: the contract with the handlers and the local runtime (renaming one is breaking). */
export const REACT_STATES = {
  ...LOOP_STATES,
  verifyAndReason: "VerifyAndReason",
} as const;

/** The ReAct pattern's own Lambda step. */
export interface ReactPatternFunctions {
  readonly verifyAndReason: GoalLoopFunction;
}

/**
 * The ReAct state machine's definition on the shared skeleton: LoadGoal → NextAction →
 * VerifyAndReason → NextAction → VerifyAndReason …: VerifyAndReason verifies the last step, decides,
 * makes the `reason` call and acts on it, so an iteration costs two transitions. A turn that needs
 * an approval answers `approval` instead: AwaitApproval → NextAction → Act → NextAction →
 * VerifyAndReason.
 */
export function reactDefinition(definition: LoopDefinition, fns: ReactPatternFunctions): IChainable {
  const verifyAndReason = definition.step(REACT_STATES.verifyAndReason, fns.verifyAndReason);
  return definition.route({ verify: verifyAndReason }, [verifyAndReason]);
}
