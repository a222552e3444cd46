import { Duration, Token } from "aws-cdk-lib";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import { DEFAULT_REPLAN_COOLDOWN_SECONDS } from "../../lambdas/core/patterns/plan-execute/plan-execute-deps";
import { PatternLoop, type PatternLoopProps } from "./pattern-loop";
import {
  DEFAULT_PLAN_STEP_CONCURRENCY,
  MAX_PLAN_STEP_CONCURRENCY,
  type PlanExecutePatternFunctions,
  planExecuteDefinition,
} from "./plan-execute-definition";

/** The wait before a replan that follows a replan without any successful step. */
export const DEFAULT_REPLAN_COOLDOWN = Duration.seconds(DEFAULT_REPLAN_COOLDOWN_SECONDS);
const MAX_REPLAN_COOLDOWN = Duration.hours(1);

export interface PlanExecuteLoopProps extends PatternLoopProps {
  /**
   * How long the loop waits before a replan when the previous replan saw no successful step (one of
   * the brakes on a replan storm, with `maxReplans` and no-progress detection). 1 second to 1 hour.
   *
   * @default Duration.seconds(30)
   */
  readonly replanCooldown?: Duration;
  /**
   * How many ready plan steps' executor turns the ExecuteBatch Map state makes at once
   * (`MaxConcurrency`), from 1 to 20 (a plan's most steps).
   *
   * @default 4
   */
  readonly maxConcurrency?: number;
}

/**
 * The Plan-and-Execute loop (DESIGN §2): plan (heavy model) → optional plan approval → execute the
 * ready steps (fast model; their turns at once in the ExecuteBatch Map state when two or more are
 * ready; Execute runs each step's tools, or the shared Act after an approval) →
 * observe each step (success, below expectation, recoverable or unrecoverable failure) → replan
 * locally or globally when needed, bounded by `maxReplans`, a cooldown and no-progress detection,
 * as a Standard state machine (JSONPath only) whose Lambda steps keep all goal state in the goal
 * table and pass only `{goalId, runId, iteration, next}` (and a cooldown's seconds) between states.
 *
 * Least privilege: every step reads and writes the table; only Observe, Plan and Execute may call
 * Bedrock, and only the allowed models; the shared ContinueAsNew may start only this pattern's machines.
 */
export class PlanExecuteLoop extends PatternLoop {
  readonly stateMachine: StateMachine;
  /** The pattern's own steps; the shared ones are in `steps.functions`. */
  readonly functions: PlanExecutePatternFunctions;
  readonly replanCooldown: Duration;
  /** ExecuteBatch's `MaxConcurrency`. */
  readonly maxConcurrency: number;

  constructor(scope: Construct, id: string, props: PlanExecuteLoopProps) {
    const replanCooldown = props.replanCooldown ?? DEFAULT_REPLAN_COOLDOWN;
    validateReplanCooldown(replanCooldown);
    const maxConcurrency = props.maxConcurrency ?? DEFAULT_PLAN_STEP_CONCURRENCY;
    validateMaxConcurrency(maxConcurrency);
    super(scope, id, props, {
      pattern: "plan_execute",
      constructName: "PlanExecuteLoop",
      nameSuffix: "plan-execute",
      comment:
        "goal-loops Plan-and-Execute: plan, execute each step, observe, replan when needed, until the success checks have evidence",
    });
    this.replanCooldown = replanCooldown;
    this.maxConcurrency = maxConcurrency;
    const environment = { REPLAN_COOLDOWN_SECONDS: String(replanCooldown.toSeconds()) };
    this.functions = {
      observe: this.modelStep("Observe", {
        bundle: "observe",
        description:
          "goal-loops Plan-and-Execute Observe: verify and classify the last step, replan or decide what is next",
        environment,
      }),
      plan: this.modelStep("Plan", {
        bundle: "plan",
        description: "goal-loops Plan-and-Execute Plan: make or repair the plan with the heavy model",
        environment,
      }),
      execute: this.actingModelStep("Execute", {
        bundle: "execute",
        description:
          "goal-loops Plan-and-Execute Execute: the fast model's turn for the next plan step, acted on unless gated",
      }),
    };
    this.stateMachine = this.createStateMachine((definition) =>
      planExecuteDefinition(definition, this.functions, { maxConcurrency }),
    );
  }
}

function validateReplanCooldown(cooldown: Duration): void {
  if (Token.isUnresolved(cooldown.toSeconds({ integral: false }))) return;
  const seconds = cooldown.toSeconds({ integral: false });
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_REPLAN_COOLDOWN.toSeconds()) {
    throw new Error(
      `PlanExecuteLoop: replanCooldown must be a whole number of seconds from 1 to ${MAX_REPLAN_COOLDOWN.toSeconds()}; got ${seconds}`,
    );
  }
}

function validateMaxConcurrency(maxConcurrency: number): void {
  if (Token.isUnresolved(maxConcurrency)) return;
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1 || maxConcurrency > MAX_PLAN_STEP_CONCURRENCY) {
    throw new Error(
      `PlanExecuteLoop: maxConcurrency must be a whole number from 1 to ${MAX_PLAN_STEP_CONCURRENCY}; got ${maxConcurrency}`,
    );
  }
}
