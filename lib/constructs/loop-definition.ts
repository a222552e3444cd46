import { Duration } from "aws-cdk-lib";
import {
  Choice,
  Condition,
  type IChainable,
  IntegrationPattern,
  JitterType,
  JsonPath,
  Pass,
  Result,
  type RetryProps,
  Succeed,
  TaskInput,
  Timeout,
  Wait,
  WaitTime,
} from "aws-cdk-lib/aws-stepfunctions";
import { LambdaInvoke } from "aws-cdk-lib/aws-stepfunctions-tasks";
import { Construct } from "constructs";
import { RETRYABLE_MODEL_ERRORS, THROTTLING_ERROR } from "../../lambdas/adapters/bedrock/bedrock-errors";
import { EXECUTION_START_THROTTLED } from "../../lambdas/adapters/step-functions/execution-start-error";
import type { NextStep } from "../../lambdas/core/loop/step-result";
import type { GoalLoopFunction } from "./goal-loop-function";

/** Lambda refused the invoke for want of concurrency: capacity, not failure (see LAMBDA_CAPACITY_RETRY). */
export const LAMBDA_THROTTLED = "Lambda.TooManyRequestsException";
/** Errors Lambda's Invoke API raises that a later attempt may get past (FACTS: keep one budget). */
export const LAMBDA_SERVICE_ERRORS = [
  "Lambda.ServiceException",
  "Lambda.AWSLambdaException",
  "Lambda.SdkClientException",
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
 * Bedrock's ThrottlingException is not here: the step itself turns it into a capacity wait.
 */
const STEP_RETRY_ERRORS = [
  ...LAMBDA_SERVICE_ERRORS,
  ...STEP_CRASH_ERRORS,
  ...RETRYABLE_MODEL_ERRORS.filter((name) => name !== THROTTLING_ERROR),
  ...RETRYABLE_STORE_ERRORS,
  EXECUTION_START_THROTTLED,
] as const;

const STEP_RETRY: Omit<RetryProps, "errors"> = {
  maxAttempts: 3,
  interval: Duration.seconds(2),
  backoffRate: 2,
  jitterStrategy: JitterType.FULL,
};

/**
 * Lambda's concurrency refused a step (a new account's low quota, a burst of goals): two quick
 * attempts, then the run waits in WaitForCapacity (a random 5 to 30 s, so a burst spreads) and
 * routes back to the step, for as long as it takes. The states that cannot route back
 * (ApprovalExpired, RecordFailure) retry it for about half an hour instead.
 */
const LAMBDA_CAPACITY_RETRY: RetryProps = {
  errors: [LAMBDA_THROTTLED],
  maxAttempts: 2,
  interval: Duration.seconds(1),
  backoffRate: 2,
  jitterStrategy: JitterType.FULL,
};
const LAMBDA_CAPACITY_LONG_RETRY: RetryProps = {
  errors: [LAMBDA_THROTTLED],
  maxAttempts: 10,
  interval: Duration.seconds(5),
  backoffRate: 2,
  maxDelay: Duration.minutes(5),
  jitterStrategy: JitterType.FULL,
};
/** How long a run waits after Lambda's concurrency refused a step: a random whole number of seconds. */
export const LAMBDA_CAPACITY_WAIT_SECONDS = { min: 5, max: 30 } as const;

/**
 * The states every loop pattern shares (the contract with the handlers and the local runtime:
 * renaming one is breaking). Each pattern adds its own steps between LoadGoal and Act.
 */
export const LOOP_STATES = {
  runsOnVersion: "RunsOnVersion",
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
  waitForCapacity: "WaitForCapacity",
  resumeAfterCapacity: "ResumeAfterCapacity",
  lambdaThrottled: "LambdaThrottled",
  loadGoalThrottled: "LoadGoalThrottled",
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
  | "continued"
  | "wait_for_capacity";

/**
 * The skeleton every loop pattern shares (DESIGN §2): LoadGoal → NextAction (a Choice on `$.next`)
 * → the pattern's steps (the acting one runs an ungated turn's tool calls itself) → the pattern's
 * verify step; Act after an approval or the sub-goals; AwaitApproval (a task-token wait with a
 * timeout) for approvals, limit and failure decisions; AwaitSubgoals (a task-token wait) while the
 * sub-goals a turn started run; ContinueAsNew; end states. Each step has one retry budget for
 * transient errors and crashes; anything else is caught into RecordFailure, which marks the goal
 * failed and fails the execution there, so a redrive resumes right at it.
 *
 * Capacity is not failure (DESIGN §4): a step whose model call has no capacity answers
 * `wait_for_capacity`, and a step Lambda's concurrency refused is caught into LambdaThrottled;
 * either way the run sits in the WaitForCapacity Wait state (no Lambda running) and then
 * ResumeAfterCapacity routes it back to the step. The payload between states stays
 * `{goalId, runId, iteration, next}` (all state is in the goal table), plus `resume` and
 * `waitSeconds` on the way through WaitForCapacity.
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
  /** Where every capacity wait waits: `$.waitSeconds`, then ResumeAfterCapacity. */
  private readonly waitForCapacity: Wait;
  /** A step Lambda's concurrency refused goes here: back to its own route after a random wait. */
  private readonly lambdaThrottled: Pass;
  /** The first state: adds the deployed version to the run's input (see `route`). */
  private readonly runsOnVersion: Pass;

  constructor(
    owner: Construct,
    fns: SharedStepFunctions,
    options: {
      readonly approvalTimeout: Duration;
      /**
       * The deployed version this definition belongs to (DeployVersion's label), written into the
       * definition: a new label is a new revision, so every deploy that changes anything publishes
       * a version of every pattern's state machine, and LoadGoal's `run.started` names it.
       */
      readonly version: string;
    },
  ) {
    // States are constructs named by their state name; a scope of their own keeps those names
    // apart from the functions' construct IDs (and out of every CloudFormation logical ID).
    this.scope = new Construct(owner, "Definition");
    this.waitForCapacity = new Wait(this.scope, LOOP_STATES.waitForCapacity, {
      comment: "No model or Lambda capacity now: wait (no Lambda runs), then go back to the step",
      time: WaitTime.secondsPath("$.waitSeconds"),
    });
    this.lambdaThrottled = new Pass(this.scope, LOOP_STATES.lambdaThrottled, {
      comment: "Lambda's concurrency refused the step: wait a random while, then take the step's route again",
      parameters: {
        goalId: JsonPath.stringAt("$.goalId"),
        runId: JsonPath.stringAt("$.runId"),
        iteration: JsonPath.numberAt("$.iteration"),
        // The route that led to the step (NextAction's `$.next`) leads back to it.
        resume: JsonPath.stringAt("$.next"),
        waitSeconds: JsonPath.mathRandom(LAMBDA_CAPACITY_WAIT_SECONDS.min, LAMBDA_CAPACITY_WAIT_SECONDS.max),
      },
    });
    this.lambdaThrottled.next(this.waitForCapacity);
    this.runsOnVersion = new Pass(this.scope, LOOP_STATES.runsOnVersion, {
      comment: "The deployed version this definition is: LoadGoal records that the run started on it",
      result: Result.fromString(options.version),
      resultPath: "$.version",
    });

    // RecordFailure marks the goal failed and then fails the execution itself (GoalFailed, never
    // retried): a redrive (POST /goals/{goalId}/retry) re-runs exactly this state, which then hands
    // the goal back to NextAction. A terminated or foreign goal goes to NextAction at once.
    this.recordFailure = stepTask(this.scope, LOOP_STATES.recordFailure, fns.recordFailure);
    // Model errors cannot reach RecordFailure's own call; only infrastructure can fail it.
    this.recordFailure.addRetry(LAMBDA_CAPACITY_LONG_RETRY);
    this.recordFailure.addRetry({
      ...STEP_RETRY,
      errors: [...LAMBDA_SERVICE_ERRORS, ...STEP_CRASH_ERRORS, ...RETRYABLE_STORE_ERRORS],
    });

    this.loadGoal = this.loadGoalStep(fns.loadGoal);
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
    // Reached by AwaitApproval's timeout, not by a route of its own: a refusal is retried in place.
    this.approvalExpired = this.step(LOOP_STATES.approvalExpired, fns.approvalExpired, { routed: false });
    this.awaitApproval = awaitApprovalTask(this.scope, fns.requestApproval, options.approvalTimeout);
    this.awaitApproval.addRetry(LAMBDA_CAPACITY_RETRY);
    this.awaitApproval.addRetry({
      ...STEP_RETRY,
      errors: [...LAMBDA_SERVICE_ERRORS, ...STEP_CRASH_ERRORS, ...RETRYABLE_STORE_ERRORS],
    });
    // Nobody answered in time: the approval expires (ApprovalExpired keeps the input, adds `$.error`).
    this.awaitApproval.addCatch(this.approvalExpired, { errors: ["States.Timeout"], resultPath: "$.error" });
    this.awaitApproval.addCatch(this.lambdaThrottled, { errors: [LAMBDA_THROTTLED], resultPath: "$.error" });
    this.awaitApproval.addCatch(this.recordFailure, { errors: ["States.ALL"], resultPath: "$.error" });
    this.awaitSubgoals = awaitSubgoalsTask(this.scope, fns.awaitSubgoals);
    this.awaitSubgoals.addRetry(LAMBDA_CAPACITY_RETRY);
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
    this.awaitSubgoals.addCatch(this.lambdaThrottled, { errors: [LAMBDA_THROTTLED], resultPath: "$.error" });
    this.awaitSubgoals.addCatch(this.recordFailure, { errors: ["States.ALL"], resultPath: "$.error" });
  }

  /**
   * A Lambda step with the shared retry budget, every other error caught into RecordFailure. A
   * step reached by a route (`routed`, the default: its input's `$.next` names the route) that
   * Lambda's concurrency refuses waits in WaitForCapacity and takes its route again; one that is
   * not retries the refusal in place for about half an hour.
   */
  step(
    stateName: string,
    fn: GoalLoopFunction,
    options: { readonly payload?: TaskInput; readonly routed?: boolean } = {},
  ): LambdaInvoke {
    const task = stepTask(this.scope, stateName, fn, options);
    if (options.routed === false) task.addRetry(LAMBDA_CAPACITY_LONG_RETRY);
    else {
      task.addRetry(LAMBDA_CAPACITY_RETRY);
      task.addCatch(this.lambdaThrottled, { errors: [LAMBDA_THROTTLED], resultPath: "$.error" });
    }
    task.addRetry({ ...STEP_RETRY, errors: [...STEP_RETRY_ERRORS] });
    this.catchIntoFailure(task);
    return task;
  }

  /**
   * A Lambda step inside a Map or Parallel state (a branch): the shared retry budget, and no Catch
   * to the loop's states — a branch cannot leave its Map; the Map itself catches into RecordFailure
   * (`catchIntoFailure`). A branch Lambda's concurrency refuses ends at `deferred` (its work is
   * left to the step after the Map), after the same two quick attempts as any step.
   */
  branchStep(
    stateName: string,
    fn: GoalLoopFunction,
    options: { readonly deferred: IChainable },
  ): LambdaInvoke {
    const task = stepTask(this.scope, stateName, fn);
    task.addRetry(LAMBDA_CAPACITY_RETRY);
    task.addCatch(options.deferred, { errors: [LAMBDA_THROTTLED], resultPath: JsonPath.DISCARD });
    task.addRetry({ ...STEP_RETRY, errors: [...STEP_RETRY_ERRORS] });
    return task;
  }

  /** Every error a state (a Map) ends with goes to RecordFailure, as a step's does. */
  catchIntoFailure(state: {
    addCatch(handler: IChainable, props: { errors: string[]; resultPath: string }): unknown;
  }): void {
    state.addCatch(this.recordFailure, { errors: ["States.ALL"], resultPath: "$.error" });
  }

  /**
   * LoadGoal starts the run from the execution's input (`{goalId, runId}`, no route to go back
   * by): refused by Lambda's concurrency, it waits in a Wait state of its own and starts again.
   */
  private loadGoalStep(fn: GoalLoopFunction): LambdaInvoke {
    const task = stepTask(this.scope, LOOP_STATES.loadGoal, fn);
    const again = new Wait(this.scope, LOOP_STATES.loadGoalThrottled, {
      comment: "Lambda's concurrency refused LoadGoal: wait, then load the goal again",
      time: WaitTime.duration(Duration.seconds(LAMBDA_CAPACITY_WAIT_SECONDS.max)),
    });
    again.next(task);
    task.addRetry(LAMBDA_CAPACITY_RETRY);
    task.addCatch(again, { errors: [LAMBDA_THROTTLED], resultPath: JsonPath.DISCARD });
    task.addRetry({ ...STEP_RETRY, errors: [...STEP_RETRY_ERRORS] });
    this.catchIntoFailure(task);
    return task;
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
      // The step's model call had no capacity: wait, then the step runs again (see the class comment).
      wait_for_capacity: this.waitForCapacity,
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
    const resume = new Pass(this.scope, LOOP_STATES.resumeAfterCapacity, {
      comment: "Back to the step that waited for capacity",
      parameters: {
        goalId: JsonPath.stringAt("$.goalId"),
        runId: JsonPath.stringAt("$.runId"),
        iteration: JsonPath.numberAt("$.iteration"),
        next: JsonPath.stringAt("$.resume"),
      },
    });
    this.waitForCapacity.next(resume);
    resume.next(nextAction);

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
    this.runsOnVersion.next(this.loadGoal);
    return this.runsOnVersion;
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
    // The version this deploy published: a run calls the code its state machine version names.
    lambdaFunction: fn.version,
    // Resource = the version's ARN, payload = the state input, result = the handler's return value.
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
    lambdaFunction: fn.version,
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
    lambdaFunction: fn.version,
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
