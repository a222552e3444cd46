import { SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { sfnRunStarter } from "../../../lambdas/adapters/step-functions/sfn-run-starter";

const sfn = mockClient(SFNClient);
const run = { stateMachineArn: "arn:aws:states:us-east-1:1:stateMachine:react", goalId: "g-1", runId: "r2" };

function awsError(name: string, fault: "client" | "server"): Error {
  return Object.assign(new Error(name), { name, $fault: fault });
}

describe("sfnRunStarter", () => {
  beforeEach(() => sfn.reset());

  it("starts the execution named after the goal and run, with the ids as input", async () => {
    // Prepare
    sfn.on(StartExecutionCommand).resolves({ executionArn: "arn:x", startDate: new Date() });

    // Act
    await sfnRunStarter(new SFNClient({ region: "us-east-1" }))(run);

    // Assess
    expect(sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input).toEqual({
      stateMachineArn: run.stateMachineArn,
      name: "g-1-r2",
      input: JSON.stringify({ goalId: "g-1", runId: "r2" }),
    });
  });

  it("treats ExecutionAlreadyExists as already started", async () => {
    // Prepare
    sfn.on(StartExecutionCommand).rejects(awsError("ExecutionAlreadyExists", "client"));

    // Act
    const started = sfnRunStarter(new SFNClient({ region: "us-east-1" }))(run);

    // Assess
    await expect(started).resolves.toBeUndefined();
  });

  it.each([
    ["ThrottlingException", "client", "ExecutionStartThrottled", true],
    ["InternalFailure", "server", "ExecutionStartThrottled", true],
    ["AccessDeniedException", "client", "ExecutionStartError", false],
    ["StateMachineDoesNotExist", "client", "ExecutionStartError", false],
  ] as const)(
    "names %s (%s fault) %s so only a retryable start is retried",
    async (sdkName, fault, name, retryable) => {
      // Prepare
      sfn.on(StartExecutionCommand).rejects(awsError(sdkName, fault));

      // Act
      const failure = await sfnRunStarter(new SFNClient({ region: "us-east-1" }))(run).catch(
        (error: unknown) => error,
      );

      // Assess
      expect(failure).toMatchObject({ name, retryable, goalId: "g-1" });
      expect(String((failure as Error).message)).toContain(sdkName);
    },
  );
});
