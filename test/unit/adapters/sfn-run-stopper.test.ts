import { SFNClient, StopExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { executionArnOf, sfnRunStopper } from "../../../lambdas/adapters/step-functions/sfn-run-stopper";

const sfn = mockClient(SFNClient);
const run = {
  stateMachineArn: "arn:aws:states:us-east-1:1:stateMachine:react",
  goalId: "g-1",
  runId: "r2",
  cause: "goal cancelled: wrong goal",
};

function awsError(name: string, fault: "client" | "server"): Error {
  return Object.assign(new Error(name), { name, $fault: fault });
}

describe("sfnRunStopper", () => {
  beforeEach(() => sfn.reset());

  it("stops the execution named after the goal and run", async () => {
    // Prepare
    sfn.on(StopExecutionCommand).resolves({ stopDate: new Date() });

    // Act
    await sfnRunStopper(new SFNClient({ region: "us-east-1" }))(run);

    // Assess
    expect(executionArnOf(run)).toBe("arn:aws:states:us-east-1:1:execution:react:g-1-r2");
    expect(sfn.commandCalls(StopExecutionCommand)[0]?.args[0].input).toEqual({
      executionArn: "arn:aws:states:us-east-1:1:execution:react:g-1-r2",
      error: "GoalCancelled",
      cause: "goal cancelled: wrong goal",
    });
  });

  it("treats ExecutionDoesNotExist as nothing to stop", async () => {
    // Prepare
    sfn.on(StopExecutionCommand).rejects(awsError("ExecutionDoesNotExist", "client"));

    // Act
    const stopped = sfnRunStopper(new SFNClient({ region: "us-east-1" }))(run);

    // Assess
    await expect(stopped).resolves.toBeUndefined();
  });

  it.each([
    ["ThrottlingException", "client", true],
    ["InternalFailure", "server", true],
    ["AccessDeniedException", "client", false],
  ] as const)("names %s (%s fault) ExecutionStopError, retryable %s", async (sdkName, fault, retryable) => {
    // Prepare
    sfn.on(StopExecutionCommand).rejects(awsError(sdkName, fault));

    // Act
    const failure = await sfnRunStopper(new SFNClient({ region: "us-east-1" }))(run).catch(
      (error: unknown) => error,
    );

    // Assess
    expect(failure).toMatchObject({ name: "ExecutionStopError", retryable });
  });
});
