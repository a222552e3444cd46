import { Duration } from "aws-cdk-lib";
import {
  Choice,
  Condition,
  Fail,
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
import { RETRYABLE_MODEL_ERRORS } from "../../lambdas/adapters/bedrock-errors";
import { EXECUTION_START_THROTTLED } from "../../lambdas/adapters/sfn-run-starter";
import type { NextStep } from "../../lambdas/core/react/step-result";
import type { GoalLoopFunction } from "./goal-loop-function";

/** Errors Lambda's Invoke API raises that a later attempt may get past (FACTS: keep one budget). */
export const LAMBDA_SERVICE_ERRORS = [
  "Lambda.ServiceException",
  "Lambda.AWSLambdaException",
  "Lambda.SdkClientException",
  "Lambda.TooManyRequestsException",
] as const;
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
export const STEP_RETRY_ERRORS = [
  ...LAMBDA_SERVICE_ERRORS,
  ...RETRYABLE_MODEL_ERRORS,
  ...RETRYABLE_STORE_ERRORS,
  EXECUTION_START_THROTTLED,
] as const;

const STEP_RETRY: Omit<RetryProps, "errors"> = {
  maxAttempts: 3,
  interval: Duration.seconds(2),
  backoffRate: 2,
  jitterStrategy: JitterType.FULL,
};

/** State names: the contract with the handlers and the local runtime (renaming one is breaking). */
export const REACT_STATES = {
  loadGoal: "LoadGoal",
  verifyAndReason: "VerifyAndReason",
  nextAction: "NextAction",
  act: "Act",
  awaitApproval: "AwaitApproval",
  approvalExpired: "ApprovalExpired",
  continueAsNew: "ContinueAsNew",
  recordFailure: "RecordFailure",
  unknownNext: "UnknownNext",
  completed: "Completed",
  paused: "Paused",
  terminated: "Terminated",
  stopped: "Stopped",
  continued: "Continued",
  failed: "Failed",
} as const;

/** The Lambda steps the definition invokes. */
export interface ReactStepFunctions {
  readonly loadGoal: GoalLoopFunction;
  readonly verifyAndReason: GoalLoopFunction;
  readonly act: GoalLoopFunction;
  /** AwaitApproval's Lambda: stores the approval with the task token and parks the goal. */
  readonly requestApproval: GoalLoopFunction;
  /** After AwaitApproval timed out: the approval expires, the goal goes on or terminates. */
  readonly approvalExpired: GoalLoopFunction;
  readonly continueAsNew: GoalLoopFunction;
  readonly recordFailure: GoalLoopFunction;
}

/**
 * The ReAct state machine's definition (JSONPath; the contract the handlers and the local
 * runtime share), starting at LoadGoal. LoadGoal and VerifyAndReason answer to the NextAction
 * Choice, which routes on `$.next`, and so does ContinueAsNew; Act goes straight back to
 * VerifyAndReason, so one iteration costs three transitions. Each step has one retry budget for
 * transient errors; anything else is caught into RecordFailure, which marks the goal failed, and
 * then the Fail state carries the error.
 */
export function reactDefinition(
  scope: Construct,
  fns: ReactStepFunctions,
  options: { readonly approvalTimeout: Duration },
): IChainable {
  // States are constructs named by their state name; a scope of their own keeps those names
  // apart from the functions' construct IDs (and out of every CloudFormation logical ID).
  const definition = new Construct(scope, "Definition");
  const failed = new Fail(definition, REACT_STATES.failed, {
    comment: "The run stopped on an error RecordFailure wrote to the goal",
    errorPath: JsonPath.stringAt("$.error.Error"),
    causePath: JsonPath.stringAt("$.error.Cause"),
  });
  const recordFailure = stepTask(definition, REACT_STATES.recordFailure, fns.recordFailure, {
    // Keep the input: the Fail state reads the error from it.
    resultPath: JsonPath.DISCARD,
  });
  // Model errors cannot reach RecordFailure's own call; only infrastructure can fail it.
  recordFailure.addRetry({ ...STEP_RETRY, errors: [...LAMBDA_SERVICE_ERRORS, ...RETRYABLE_STORE_ERRORS] });
  recordFailure.next(failed);

  const catchToRecordFailure = (task: LambdaInvoke): LambdaInvoke => {
    task.addRetry({ ...STEP_RETRY, errors: [...STEP_RETRY_ERRORS] });
    task.addCatch(recordFailure, { errors: ["States.ALL"], resultPath: "$.error" });
    return task;
  };

  const loadGoal = catchToRecordFailure(stepTask(definition, REACT_STATES.loadGoal, fns.loadGoal));
  const verifyAndReason = catchToRecordFailure(
    stepTask(definition, REACT_STATES.verifyAndReason, fns.verifyAndReason),
  );
  const act = catchToRecordFailure(stepTask(definition, REACT_STATES.act, fns.act));
  const continueAsNew = catchToRecordFailure(
    stepTask(definition, REACT_STATES.continueAsNew, fns.continueAsNew, {
      payload: TaskInput.fromObject({
        goalId: JsonPath.stringAt("$.goalId"),
        runId: JsonPath.stringAt("$.runId"),
        iteration: JsonPath.numberAt("$.iteration"),
        next: JsonPath.stringAt("$.next"),
        // The running state machine's own ARN, from the context object: no ARN in the definition.
        stateMachineArn: JsonPath.stringAt("$$.StateMachine.Id"),
      }),
    }),
  );
  const approvalExpired = catchToRecordFailure(
    stepTask(definition, REACT_STATES.approvalExpired, fns.approvalExpired),
  );
  const awaitApproval = awaitApprovalTask(definition, fns.requestApproval, options.approvalTimeout);
  awaitApproval.addRetry({ ...STEP_RETRY, errors: [...LAMBDA_SERVICE_ERRORS, ...RETRYABLE_STORE_ERRORS] });
  // Nobody answered in time: the approval expires (ApprovalExpired keeps the input, adds `$.error`).
  awaitApproval.addCatch(approvalExpired, { errors: ["States.Timeout"], resultPath: "$.error" });
  awaitApproval.addCatch(recordFailure, { errors: ["States.ALL"], resultPath: "$.error" });

  const unknownNext = new Pass(definition, REACT_STATES.unknownNext, {
    comment: "A step answered a next step this state machine does not know: a bug, recorded as a failure",
    result: {
      value: {
        Error: "UnknownNextStep",
        Cause: "A step answered without a `next` this state machine routes (see NextAction)",
      },
    },
    resultPath: "$.error",
  });
  unknownNext.next(recordFailure);

  const routes: Record<NextStep, IChainable> = {
    verify: verifyAndReason,
    act,
    approval: awaitApproval,
    limit_decision: awaitApproval,
    continue_as_new: continueAsNew,
    completed: new Succeed(definition, REACT_STATES.completed, {
      comment: "Every success check has evidence",
    }),
    paused: new Succeed(definition, REACT_STATES.paused, {
      comment: "No progress for too long: a human resumes",
    }),
    terminated: new Succeed(definition, REACT_STATES.terminated, { comment: "A limit was reached" }),
    stop: new Succeed(definition, REACT_STATES.stopped, {
      comment: "The goal is not running: nothing to do",
    }),
    continued: new Succeed(definition, REACT_STATES.continued, {
      comment: "A new run of the goal goes on",
    }),
  };
  const nextAction = new Choice(definition, REACT_STATES.nextAction, {
    comment: "Route on the step's answer",
  })
    // A Choice on a missing path fails the execution with States.Runtime, which no Catch sees.
    .when(Condition.isNotPresent("$.next"), unknownNext);
  for (const [next, state] of Object.entries(routes)) {
    nextAction.when(Condition.stringEquals("$.next", next), state);
  }
  nextAction.otherwise(unknownNext);

  loadGoal.next(nextAction);
  verifyAndReason.next(nextAction);
  act.next(verifyAndReason);
  // The resume handler answers the token with the next step (`act`, `verify`, `terminated` …).
  awaitApproval.next(nextAction);
  approvalExpired.next(nextAction);
  // ContinueAsNew answers `continued`, or `stop` when the goal stopped running meanwhile.
  continueAsNew.next(nextAction);
  return loadGoal;
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
 * AwaitApproval: invokes request-approval with a task token (`.waitForTaskToken`) and waits until the
 * resume handler answers it with the next step payload. Always bounded by `TimeoutSeconds` (a wait
 * without one would last a year); the token goes to the Lambda only, which stores it in the approval.
 */
function awaitApprovalTask(scope: Construct, fn: GoalLoopFunction, approvalTimeout: Duration): LambdaInvoke {
  return new LambdaInvoke(scope, REACT_STATES.awaitApproval, {
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
