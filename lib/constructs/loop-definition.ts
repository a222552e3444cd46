import { Duration } from "aws-cdk-lib";
import {
  Choice,
  Condition,
  type IChainable,
  IntegrationPattern,
  JitterType,
  JsonPath,
  Pass,
  type RetryProps,
  Succeed,
  TaskInput,
  Timeout,
} from "aws-cdk-lib/aws-stepfunctions";
import { LambdaInvoke } from "aws-cdk-lib/aws-stepfunctions-tasks";
import { Construct } from "constructs";
import { RETRYABLE_MODEL_ERRORS, THROTTLING_ERROR } from "../../lambdas/adapters/bedrock/bedrock-errors";
import { EXECUTION_START_THROTTLED } from "../../lambdas/adapters/step-functions/sfn-run-starter";
import type { NextStep } from "../../lambdas/core/loop/step-result";
import type { GoalLoopFunction } from "./goal-loop-function";

/** Errors Lambda's Invoke API raises that a later attempt may get past (FACTS: keep one budget). */
export const LAMBDA_SERVICE_ERRORS = [
  "Lambda.ServiceException",
  "Lambda.AWSLambdaException",
  "Lambda.SdkClientException",
  "Lambda.TooManyRequestsException",
] as const;
/**
 * The step's process died (a crash, out of memory): `Runtime.ExitError`, or `Lambda.Unknown` when
 * Lambda could not tell. Every step is idempotent (checkpointed model calls, loop markers, a logged
 * step reused), so a fresh attempt finishes the work without paying for a model call twice.
 */
export const STEP_CRASH_ERRORS = ["Runtime.ExitError", "Lambda.Unknown"] as const;
/**
 * Goal-store errors a fresh attempt may get past: another writer committed first
 * (`ConcurrentModificationError`, core ports) or DynamoDB was throttled or unreachable
 * (`GoalStoreUnavailableError`, DynamoDB adapter).
 */
export const RETRYABLE_STORE_ERRORS = ["ConcurrentModificationError", "GoalStoreUnavailableError"] as const;
/**
 * What every step task retries on; anything else (fatal model errors among them) is caught.
 * `ExecutionStartThrottled` comes from ContinueAsNew, whose retry starts the same named run again.
 */
const STEP_RETRY_ERRORS = [
  ...LAMBDA_SERVICE_ERRORS,
  ...STEP_CRASH_ERRORS,
  ...RETRYABLE_MODEL_ERRORS.filter((name) => name !== THROTTLING_ERROR),
  ...RETRYABLE_STORE_ERRORS,
  EXECUTION_START_THROTTLED,
] as const;

/**
 * How long a step keeps retrying Bedrock's ThrottlingException, apart from every other error: the
 * rate limit comes in bursts, and a few quick attempts would give up on a goal too early. Waits grow
 * exponentially with full jitter from `interval`, each at most `maxDelay`.
 */
export interface ModelThrottlingRetry {
  /**
   * Retries after the first attempt, from 1 to 20.
   *
   * @default 6
   */
  readonly maxAttempts?: number;
  /**
   * The longest single wait between attempts, from 1 second to 15 minutes.
   *
   * @default Duration.seconds(60)
   */
  readonly maxDelay?: Duration;
}

/** The defaults of ModelThrottlingRetry, and the first wait (doubled each time, before the jitter). */
export const DEFAULT_THROTTLING_RETRY = {
  maxAttempts: 6,
  maxDelay: Duration.seconds(60),
  interval: Duration.seconds(5),
} as const;

const STEP_RETRY: Omit<RetryProps, "errors"> = {
  maxAttempts: 3,
  interval: Duration.seconds(2),
  backoffRate: 2,
  jitterStrategy: JitterType.FULL,
};

/**
 * The states every loop pattern shares (the contract with the handlers and the local runtime:
 * renaming one is breaking). Each pattern adds its own steps between LoadGoal and Act.
 */
export const LOOP_STATES = {
  loadGoal: "LoadGoal",
  nextAction: "NextAction",
  act: "Act",
  awaitApproval: "AwaitApproval",
  approvalExpired: "ApprovalExpired",
  awaitSubgoals: "AwaitSubgoals",
  continueAsNew: "ContinueAsNew",
  recordFailure: "RecordFailure",
  unknownNext: "UnknownNext",
  completed: "Completed",
  paused: "Paused",
  terminated: "Terminated",
  stopped: "Stopped",
  continued: "Continued",
} as const;

/** The Lambda steps every pattern's state machine invokes (see LoopSteps). */
export interface SharedStepFunctions {
  readonly loadGoal: GoalLoopFunction;
  /** Runs the tool calls of the iteration's acting turn (reason, execute or attempt). */
  readonly act: GoalLoopFunction;
  /** AwaitApproval's Lambda: stores the approval with the task token and parks the goal. */
  readonly requestApproval: GoalLoopFunction;
  /** After AwaitApproval timed out: the approval expires, the goal goes on or terminates. */
  readonly approvalExpired: GoalLoopFunction;
  /** AwaitSubgoals' Lambda: starts the turn's sub-goals and parks the goal until they end. */
  readonly awaitSubgoals: GoalLoopFunction;
  readonly continueAsNew: GoalLoopFunction;
  readonly recordFailure: GoalLoopFunction;
}

/** The pattern's own routes of the NextAction Choice; `verify` is where Act goes next. */
export type PatternRoutes = { readonly verify: LambdaInvoke } & Partial<
  Record<Exclude<NextStep, SharedNextStep | "verify">, IChainable>
>;

type SharedNextStep =
  | "act"
  | "approval"
  | "subgoal"
  | "limit_decision"
  | "decision"
  | "continue_as_new"
  | "completed"
  | "paused"
  | "terminated"
  | "stop"
  | "continued";

/**
 * The skeleton every loop pattern shares (DESIGN §2): LoadGoal → NextAction (a Choice on `$.next`)
 * → the pattern's steps (the acting one runs an ungated turn's tool calls itself) → the pattern's
 * verify step; Act after an approval or the sub-goals; AwaitApproval (a task-token wait with a
 * timeout) for approvals, limit and failure decisions; AwaitSubgoals (a task-token wait) while the
 * sub-goals a turn started run; ContinueAsNew; end states. Each step has one
 * retry budget for transient errors and crashes; anything else is caught into RecordFailure, which
 * marks the goal failed and fails the execution there, so a redrive resumes right at it. The
 * payload between states stays
 * `{goalId, runId, iteration, next}` (all state is in the goal table).
 */
export class LoopDefinition {
  readonly loadGoal: LambdaInvoke;
  readonly act: LambdaInvoke;
  readonly awaitApproval: LambdaInvoke;
  readonly awaitSubgoals: LambdaInvoke;
  readonly continueAsNew: LambdaInvoke;
  private readonly approvalExpired: LambdaInvoke;
  private readonly recordFailure: LambdaInvoke;
  private readonly scope: Construct;

  private readonly throttlingRetry: RetryProps;

  constructor(
    owner: Construct,
    fns: SharedStepFunctions,
    options: { readonly approvalTimeout: Duration; readonly throttlingRetry?: ModelThrottlingRetry },
  ) {
    // States are constructs named by their state name; a scope of their own keeps those names
    // apart from the functions' construct IDs (and out of every CloudFormation logical ID).
    this.scope = new Construct(owner, "Definition");
    this.throttlingRetry = {
      errors: [THROTTLING_ERROR],
      interval: DEFAULT_THROTTLING_RETRY.interval,
      maxAttempts: options.throttlingRetry?.maxAttempts ?? DEFAULT_THROTTLING_RETRY.maxAttempts,
      maxDelay: options.throttlingRetry?.maxDelay ?? DEFAULT_THROTTLING_RETRY.maxDelay,
      backoffRate: 2,
      jitterStrategy: JitterType.FULL,
    };
    // RecordFailure marks the goal failed and then fails the execution itself (GoalFailed, never
    // retried): a redrive (POST /goals/{goalId}/retry) re-runs exactly this state, which then hands
    // the goal back to NextAction. A terminated or foreign goal goes to NextAction at once.
    this.recordFailure = stepTask(this.scope, LOOP_STATES.recordFailure, fns.recordFailure);
    // Model errors cannot reach RecordFailure's own call; only infrastructure can fail it.
    this.recordFailure.addRetry({
      ...STEP_RETRY,
      errors: [...LAMBDA_SERVICE_ERRORS, ...STEP_CRASH_ERRORS, ...RETRYABLE_STORE_ERRORS],
    });

    this.loadGoal = this.step(LOOP_STATES.loadGoal, fns.loadGoal);
    this.act = this.step(LOOP_STATES.act, fns.act);
    this.continueAsNew = this.step(LOOP_STATES.continueAsNew, fns.continueAsNew, {
      payload: TaskInput.fromObject({
        goalId: JsonPath.stringAt("$.goalId"),
        runId: JsonPath.stringAt("$.runId"),
        iteration: JsonPath.numberAt("$.iteration"),
        next: JsonPath.stringAt("$.next"),
        // The running state machine's own ARN, from the context object: no ARN in the definition.
        stateMachineArn: JsonPath.stringAt("$$.StateMachine.Id"),
      }),
    });
    this.approvalExpired = this.step(LOOP_STATES.approvalExpired, fns.approvalExpired);
    this.awaitApproval = awaitApprovalTask(this.scope, fns.requestApproval, options.approvalTimeout);
    this.awaitApproval.addRetry({
      ...STEP_RETRY,
      errors: [...LAMBDA_SERVICE_ERRORS, ...STEP_CRASH_ERRORS, ...RETRYABLE_STORE_ERRORS],
    });
    // Nobody answered in time: the approval expires (ApprovalExpired keeps the input, adds `$.error`).
    this.awaitApproval.addCatch(this.approvalExpired, { errors: ["States.Timeout"], resultPath: "$.error" });
    this.awaitApproval.addCatch(this.recordFailure, { errors: ["States.ALL"], resultPath: "$.error" });
    this.awaitSubgoals = awaitSubgoalsTask(this.scope, fns.awaitSubgoals);
    this.awaitSubgoals.addRetry({
      ...STEP_RETRY,
      errors: [
        ...LAMBDA_SERVICE_ERRORS,
        ...STEP_CRASH_ERRORS,
        ...RETRYABLE_STORE_ERRORS,
        EXECUTION_START_THROTTLED,
      ],
    });
    // The wait asks again after each timeout: the goal keeps waiting (its children have deadlines of
    // their own), and the step looks at the children once more, so a lost end event costs at most this.
    this.awaitSubgoals.addCatch(this.awaitSubgoals, { errors: ["States.Timeout"], resultPath: "$.error" });
    this.awaitSubgoals.addCatch(this.recordFailure, { errors: ["States.ALL"], resultPath: "$.error" });
  }

  /** A Lambda step with the shared retry budget, every other error caught into RecordFailure. */
  step(
    stateName: string,
    fn: GoalLoopFunction,
    options: { readonly payload?: TaskInput } = {},
  ): LambdaInvoke {
    const task = this.branchStep(stateName, fn, options);
    this.catchIntoFailure(task);
    return task;
  }

  /**
   * A Lambda step inside a Map or Parallel state (a branch): the shared retry budget, and no Catch —
   * a branch cannot leave its Map; the Map itself catches into RecordFailure (`catchIntoFailure`).
   */
  branchStep(
    stateName: string,
    fn: GoalLoopFunction,
    options: { readonly payload?: TaskInput } = {},
  ): LambdaInvoke {
    const task = stepTask(this.scope, stateName, fn, options);
    // Throttling first: its own, longer budget; every other transient error shares the short one.
    task.addRetry(this.throttlingRetry);
    task.addRetry({ ...STEP_RETRY, errors: [...STEP_RETRY_ERRORS] });
    return task;
  }

  /** Every error a state (a Map) ends with goes to RecordFailure, as a step's does. */
  catchIntoFailure(state: {
    addCatch(handler: IChainable, props: { errors: string[]; resultPath: string }): unknown;
  }): void {
    state.addCatch(this.recordFailure, { errors: ["States.ALL"], resultPath: "$.error" });
  }

  /** A state of the pattern's own (a Wait, a Pass) in the definition's scope. */
  get stateScope(): Construct {
    return this.scope;
  }

  /**
   * The NextAction Choice over the shared routes and the pattern's, wired to every step that answers
   * `next`: LoadGoal, AwaitApproval, ApprovalExpired, ContinueAsNew, and the pattern's steps (the
   * caller chains those). Act goes straight to the pattern's `verify` step. Returns the start state.
   */
  route(routes: PatternRoutes, patternSteps: readonly LambdaInvoke[]): IChainable {
    const unknownNext = new Pass(this.scope, LOOP_STATES.unknownNext, {
      comment: "A step answered a next step this state machine does not know: a bug, recorded as a failure",
      result: {
        value: {
          Error: "UnknownNextStep",
          Cause: "A step answered without a `next` this state machine routes (see NextAction)",
        },
      },
      resultPath: "$.error",
    });
    unknownNext.next(this.recordFailure);

    const all: Partial<Record<NextStep, IChainable>> = {
      ...routes,
      act: this.act,
      approval: this.awaitApproval,
      // The turn started sub-goals: wait (on a task token) until they end, then Act answers the calls.
      subgoal: this.awaitSubgoals,
      limit_decision: this.awaitApproval,
      // An unrecoverable failure (a plan step's, or a tool call's in react and reflexion) asks a human.
      decision: this.awaitApproval,
      continue_as_new: this.continueAsNew,
      completed: new Succeed(this.scope, LOOP_STATES.completed, {
        comment: "Every success check has evidence",
      }),
      paused: new Succeed(this.scope, LOOP_STATES.paused, {
        comment: "No progress for too long: a human resumes",
      }),
      terminated: new Succeed(this.scope, LOOP_STATES.terminated, {
        comment: "A limit was reached or a human ended the goal",
      }),
      stop: new Succeed(this.scope, LOOP_STATES.stopped, {
        comment: "The goal is not running: nothing to do",
      }),
      continued: new Succeed(this.scope, LOOP_STATES.continued, {
        comment: "A new run of the goal goes on",
      }),
    };
    const nextAction = new Choice(this.scope, LOOP_STATES.nextAction, {
      comment: "Route on the step's answer",
    })
      // A Choice on a missing path fails the execution with States.Runtime, which no Catch sees.
      .when(Condition.isNotPresent("$.next"), unknownNext);
    for (const [next, state] of Object.entries(all)) {
      nextAction.when(Condition.stringEquals("$.next", next), state);
    }
    nextAction.otherwise(unknownNext);

    for (const step of [
      ...patternSteps,
      this.loadGoal,
      this.approvalExpired,
      this.continueAsNew,
      this.recordFailure,
    ]) {
      step.next(nextAction);
    }
    // The resume handler answers the token with the next step (`act`, `verify`, `terminated` …).
    this.awaitApproval.next(nextAction);
    this.awaitSubgoals.next(nextAction);
    // Act answers `verify`, or `subgoal` when the turn's calls start sub-goals that must end first.
    this.act.next(nextAction);
    return this.loadGoal;
  }
}

/**
 * A Lambda step whose payload is the state input (the previous step's `{goalId, runId, iteration,
 * next}`) and whose output is the handler's answer. No `Parameters` picking fields: a path to a
 * missing field fails the execution with States.Runtime, which no Catch sees, while the handler's
 * own parse of a bad payload throws an error RecordFailure records.
 */
function stepTask(
  scope: Construct,
  id: string,
  fn: GoalLoopFunction,
  options: { readonly payload?: TaskInput; readonly resultPath?: string } = {},
): LambdaInvoke {
  return new LambdaInvoke(scope, id, {
    lambdaFunction: fn.function,
    // Resource = the function ARN, payload = the state input, result = the handler's return value.
    payloadResponseOnly: true,
    // One retry budget per task, set explicitly (SDK retries × state retries would multiply).
    retryOnServiceExceptions: false,
    payload: options.payload,
    resultPath: options.resultPath,
    // A bound past the function's own timeout, for engines (the local runtime) whose default is shorter.
    taskTimeout: Timeout.duration(fn.timeout.plus(Duration.seconds(30))),
  });
}

/**
 * How long AwaitSubgoals waits before it looks at the children again (a `Goal Ended` event wakes it
 * as soon as they end; this bounds what a lost one costs).
 */
export const SUBGOAL_RECHECK = Duration.hours(1);

/**
 * AwaitSubgoals: invokes await-subgoals with a task token (`.waitForTaskToken`); the resume handler
 * answers it with `act` once the turn's sub-goals ended. Bounded by `TimeoutSeconds` like every
 * callback task; a timeout asks again (see the Catch in LoopDefinition).
 */
function awaitSubgoalsTask(scope: Construct, fn: GoalLoopFunction): LambdaInvoke {
  return new LambdaInvoke(scope, LOOP_STATES.awaitSubgoals, {
    lambdaFunction: fn.function,
    integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    retryOnServiceExceptions: false,
    payload: TaskInput.fromObject({
      goalId: JsonPath.stringAt("$.goalId"),
      runId: JsonPath.stringAt("$.runId"),
      iteration: JsonPath.numberAt("$.iteration"),
      next: "subgoal",
      taskToken: JsonPath.taskToken,
    }),
    taskTimeout: Timeout.duration(SUBGOAL_RECHECK),
  });
}

/**
 * AwaitApproval: invokes request-approval with a task token (`.waitForTaskToken`) and waits until the
 * resume handler answers it with the next step payload. Always bounded by `TimeoutSeconds` (a wait
 * without one would last a year); the token goes to the Lambda only, which stores it in the approval.
 */
function awaitApprovalTask(scope: Construct, fn: GoalLoopFunction, approvalTimeout: Duration): LambdaInvoke {
  return new LambdaInvoke(scope, LOOP_STATES.awaitApproval, {
    lambdaFunction: fn.function,
    integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    retryOnServiceExceptions: false,
    payload: TaskInput.fromObject({
      goalId: JsonPath.stringAt("$.goalId"),
      runId: JsonPath.stringAt("$.runId"),
      iteration: JsonPath.numberAt("$.iteration"),
      next: JsonPath.stringAt("$.next"),
      taskToken: JsonPath.taskToken,
    }),
    taskTimeout: Timeout.duration(approvalTimeout),
  });
}
