import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  GetExecutionHistoryCommand,
  InvalidToken,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  type SFNClient,
  StartExecutionCommand,
  StateMachineDoesNotExist,
  StopExecutionCommand,
  TaskTimedOut,
} from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCloudAssembly } from "../../lib/local/cdk-out/cdk-out";
import { LambdaHost } from "../../lib/local/lambda/lambda-host";
import type { CloudAssemblyModel } from "../../lib/local/shared/cloud-assembly-model";
import type { RunningServer } from "../../lib/local/shared/listen";
import { startSfnEndpoint } from "../../lib/local/step-functions/sfn-endpoint";
import { StateMachineRunner } from "../../lib/local/step-functions/state-machine-runner";
import { synthFixtureApp } from "./fixtures/fixture-app";
import { collectingLog, sfnClientFor, waitFor } from "./support";

describe("StateMachineRunner with the local Step Functions endpoint", () => {
  let model: CloudAssemblyModel;
  let runner: StateMachineRunner;
  let endpoint: RunningServer;
  let host: LambdaHost;
  let sfn: SFNClient;
  let flowArn: string;
  let names = 0;
  const uniqueName = (prefix: string) => `${prefix}-${++names}`;

  beforeAll(async () => {
    model = loadCloudAssembly(synthFixtureApp());
    flowArn = model.stateMachines[0]?.arn ?? "";
    runner = new StateMachineRunner({
      stateMachines: model.stateMachines,
      invokeFunction: (ref, payload) => host.invoke(ref, payload),
    });
    endpoint = await startSfnEndpoint(runner);
    host = new LambdaHost({
      functions: model.functions,
      endpoints: { sfn: endpoint.url },
      log: collectingLog().log,
    });
    sfn = sfnClientFor(endpoint.url);
  });
  afterAll(async () => {
    await runner.close();
    await host.close();
    sfn.destroy();
    await endpoint.close();
  });

  const pendingTokenOf = (executionArn: string) =>
    waitFor(
      () => runner.tokens.pending().find((t) => t.executionArn === executionArn)?.token,
      "a pending task token",
    );

  it("retries a named error with the state's Retry and succeeds, counting transitions and retries", async () => {
    // Act: the task fails twice with TransientError, which its Retry matches.
    const execution = runner.startExecution(
      flowArn,
      { scenario: "retry", errorName: "TransientError", times: 2 },
      uniqueName("retry"),
    );
    await execution.done;

    // Assess: Route → Flaky (2 retries) → Done; retries waited 0 ms locally.
    expect(execution.status).toBe("SUCCEEDED");
    expect(execution.output).toMatchObject({ flaky: { attempts: 3 } });
    expect(execution.retries).toBe(2);
    expect(execution.transitions).toBe(3);
  });

  it("answers GetExecutionHistory with the real event types, numbered, a failed retry as TaskFailed", async () => {
    // Prepare: Route → Flaky (fails once, retried) → Done.
    const execution = runner.startExecution(
      flowArn,
      { scenario: "retry", errorName: "TransientError", times: 1 },
      uniqueName("history"),
    );
    await execution.done;

    // Act: through the real SDK client, in pages of 2, and newest first.
    const events = [];
    let nextToken: string | undefined;
    do {
      const page = await sfn.send(
        new GetExecutionHistoryCommand({ executionArn: execution.executionArn, maxResults: 2, nextToken }),
      );
      events.push(...(page.events ?? []));
      nextToken = page.nextToken;
    } while (nextToken !== undefined);
    const newestFirst = await sfn.send(
      new GetExecutionHistoryCommand({ executionArn: execution.executionArn, reverseOrder: true }),
    );

    // Assess
    expect(events.map((event) => event.type)).toEqual([
      "ExecutionStarted",
      "ChoiceStateEntered",
      "ChoiceStateExited",
      "TaskStateEntered",
      "TaskFailed",
      "TaskStateExited",
      "SucceedStateEntered",
      "SucceedStateExited",
      "ExecutionSucceeded",
    ]);
    expect(events.map((event) => event.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(events[1]?.previousEventId).toBe(1);
    expect(events[3]?.stateEnteredEventDetails?.name).toBe("Flaky");
    expect(events[4]?.taskFailedEventDetails?.error).toBe("TransientError");
    expect(events[0]?.timestamp).toBeInstanceOf(Date);
    expect(JSON.parse(events[8]?.executionSucceededEventDetails?.output ?? "null")).toMatchObject({
      flaky: { attempts: 2 },
    });
    expect(newestFirst.events?.[0]?.type).toBe("ExecutionSucceeded");
  });

  it("lists its state machines, and refuses a history of an unknown execution or a foreign page token", async () => {
    // Act
    const listed = await sfn.send(new ListStateMachinesCommand({}));
    const unknown = await sfn
      .send(
        new GetExecutionHistoryCommand({
          executionArn: `${flowArn.replace(":stateMachine:", ":execution:")}:nope`,
        }),
      )
      .catch((error: unknown) => error);
    const execution = runner.startExecution(flowArn, { scenario: "retry", times: 0 }, uniqueName("token"));
    await execution.done;
    const badToken = await sfn
      .send(new GetExecutionHistoryCommand({ executionArn: execution.executionArn, nextToken: "x" }))
      .catch((error: unknown) => error);

    // Assess
    expect(listed.stateMachines?.map((machine) => machine.stateMachineArn)).toEqual(
      model.stateMachines.map((machine) => machine.arn),
    );
    expect(listed.stateMachines?.[0]).toMatchObject({ type: "STANDARD" });
    expect(unknown).toBeInstanceOf(ExecutionDoesNotExist);
    expect(badToken).toBeInstanceOf(InvalidToken);
  });

  it("sends an error no Retry matches to the Catch, ending in the Fail state with the Lambda's Cause", async () => {
    // Act
    const execution = runner.startExecution(
      flowArn,
      { scenario: "retry", errorName: "FatalError", times: 1 },
      uniqueName("fatal"),
    );
    await execution.done;

    // Assess
    expect(execution.status).toBe("FAILED");
    expect(execution.error).toBe("FatalError");
    expect(JSON.parse(execution.cause ?? "{}")).toMatchObject({
      errorType: "FatalError",
      errorMessage: "failure 1 of 1",
    });
    expect(execution.retries).toBe(0);
  });

  it("stops retrying after MaxAttempts and catches the last error", async () => {
    // Act
    const execution = runner.startExecution(
      flowArn,
      { scenario: "retry", errorName: "TransientError", times: 9 },
      uniqueName("exhausted"),
    );
    await execution.done;

    // Assess
    expect(execution.status).toBe("FAILED");
    expect(execution.error).toBe("TransientError");
    expect(execution.retries).toBe(3);
  });

  it("waits on a task token until SendTaskSuccess arrives through the real SFN client", async () => {
    // Prepare
    const execution = runner.startExecution(flowArn, { scenario: "gate" }, uniqueName("gate"));
    const token = await pendingTokenOf(execution.executionArn);
    expect(runner.tokens.pending().find((t) => t.token === token)?.stateName).toBe("Approval");

    // Act
    await sfn.send(
      new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify({ decision: "approve" }) }),
    );
    await execution.done;
    const late = await sfn
      .send(new SendTaskSuccessCommand({ taskToken: token, output: "{}" }))
      .catch((error: unknown) => error);

    // Assess
    expect(execution.status).toBe("SUCCEEDED");
    expect(execution.output).toMatchObject({ approval: { decision: "approve" } });
    expect(late).toBeInstanceOf(TaskTimedOut);
  });

  it("fails the task with the error name SendTaskFailure gives", async () => {
    // Prepare
    const execution = runner.startExecution(flowArn, { scenario: "gate" }, uniqueName("reject"));
    const token = await pendingTokenOf(execution.executionArn);

    // Act
    await sfn.send(new SendTaskFailureCommand({ taskToken: token, error: "Rejected", cause: "no, thanks" }));
    await execution.done;

    // Assess
    expect(execution).toMatchObject({ status: "FAILED", error: "Rejected", cause: "no, thanks" });
  });

  it("answers a token it never issued with InvalidToken", async () => {
    // Act
    const failure = await sfn
      .send(new SendTaskSuccessCommand({ taskToken: "not-a-token", output: "{}" }))
      .catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(InvalidToken);
  });

  it("times a callback task out after its TimeoutSeconds with States.Timeout, which a Catch can match", async () => {
    // Prepare: QuickGate has TimeoutSeconds 1 and catches States.Timeout.
    const execution = runner.startExecution(flowArn, { scenario: "quick-gate" }, uniqueName("quick"));
    const token = await pendingTokenOf(execution.executionArn);

    // Act
    await execution.done;
    const late = await sfn
      .send(new SendTaskSuccessCommand({ taskToken: token, output: "{}" }))
      .catch((error: unknown) => error);

    // Assess
    expect(execution.status).toBe("SUCCEEDED");
    expect(execution.output).toMatchObject({ timeout: { Error: "States.Timeout" } });
    expect(late).toBeInstanceOf(TaskTimedOut);
  });

  it("lets a Lambda start an execution through AWS_ENDPOINT_URL_SFN", async () => {
    // Act: StartChild calls StartExecution for `<name>-child` with the SDK, reaching the local endpoint.
    const name = uniqueName("parent");
    const parent = runner.startExecution(flowArn, { scenario: "start" }, name);
    await parent.done;
    const child = runner.describe(`${flowArn.replace(":stateMachine:", ":execution:")}:${name}-child`);
    await child?.done;

    // Assess
    expect(parent.status).toBe("SUCCEEDED");
    expect(parent.output).toMatchObject({ child: { executionArn: child?.executionArn } });
    expect(child?.status).toBe("SUCCEEDED");
    expect(child?.input).toEqual({ scenario: "noop" });
  });

  it("returns the Lambda Invoke envelope from arn:aws:states:::lambda:invoke", async () => {
    // Act
    const execution = runner.startExecution(flowArn, { scenario: "envelope" }, uniqueName("envelope"));
    await execution.done;

    // Assess: the ResultSelector picked Payload and StatusCode out of the envelope.
    expect(execution.status).toBe("SUCCEEDED");
    expect(execution.output).toMatchObject({ invoked: { status: 200, env: { flavor: "cjs" } } });
  });

  it("makes StartExecution idempotent for the same name and input while running, and stops on StopExecution", async () => {
    // Prepare
    const name = uniqueName("idempotent");
    const input = JSON.stringify({ scenario: "gate" });
    const first = await sfn.send(new StartExecutionCommand({ stateMachineArn: flowArn, name, input }));
    await pendingTokenOf(first.executionArn ?? "");

    // Act
    const again = await sfn.send(new StartExecutionCommand({ stateMachineArn: flowArn, name, input }));
    const otherInput = await sfn
      .send(new StartExecutionCommand({ stateMachineArn: flowArn, name, input: "{}" }))
      .catch((error: unknown) => error);
    await sfn.send(new StopExecutionCommand({ executionArn: first.executionArn, cause: "enough" }));
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn: first.executionArn }));
    const aborted = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn: flowArn, statusFilter: "ABORTED" }),
    );

    // Assess
    expect(again.executionArn).toBe(first.executionArn);
    expect(otherInput).toBeInstanceOf(ExecutionAlreadyExists);
    expect(described).toMatchObject({ status: "ABORTED", name, input, cause: "enough" });
    expect(described.stopDate).toBeInstanceOf(Date);
    expect(aborted.executions?.map((e) => e.name)).toContain(name);
    expect(runner.tokens.pending().filter((t) => t.executionArn === first.executionArn)).toEqual([]);
  });

  it("maps unknown state machines and executions to the SDK's named exceptions", async () => {
    // Act
    const noMachine = await sfn
      .send(new StartExecutionCommand({ stateMachineArn: `${flowArn}-nope`, input: "{}" }))
      .catch((error: unknown) => error);
    const noExecution = await sfn
      .send(
        new DescribeExecutionCommand({
          executionArn: `${flowArn.replace(":stateMachine:", ":execution:")}:nope`,
        }),
      )
      .catch((error: unknown) => error);

    // Assess
    expect(noMachine).toBeInstanceOf(StateMachineDoesNotExist);
    expect(noExecution).toBeInstanceOf(ExecutionDoesNotExist);
  });

  it("refuses an invalid definition on every start, also after a valid one was accepted", () => {
    // Prepare: the fixture's machine, and a definition whose StartAt names no state
    const [spec] = model.stateMachines;
    if (spec === undefined) throw new Error("the fixture app has no state machine");
    const broken = {
      ...spec,
      definition: { StartAt: "Missing", States: { Only: { Type: "Pass", End: true } } },
    };
    const newRunner = (stateMachines: (typeof model.stateMachines)[number][]) =>
      new StateMachineRunner({ stateMachines, invokeFunction: async () => null });

    // Act + Assess: the valid definition loads again (the second time remembered); the broken one
    // fails the first and the second time alike, named by the engine's validator
    for (const _ of [1, 2]) {
      expect(() => newRunner([spec])).not.toThrow();
      expect(() => newRunner([broken])).toThrow(/State machine definition is invalid/);
    }
  });

  it("keeps the definitions it accepted in the file it is given, never a refused one, and reads past a bad file", () => {
    // Prepare: a state folder whose file holds what no run writes
    const [spec] = model.stateMachines;
    if (spec === undefined) throw new Error("the fixture app has no state machine");
    const folder = mkdtempSync(join(tmpdir(), "goal-loops-validated-"));
    const file = join(folder, "validated-definitions.json");
    writeFileSync(file, '{"__proto__": {"polluted": true}, "not": "a list"}');
    const broken = { ...spec, definition: { StartAt: "Missing", States: {} } };
    const start = (stateMachines: (typeof model.stateMachines)[number][]) =>
      new StateMachineRunner({
        stateMachines,
        invokeFunction: async () => null,
        validatedDefinitionsFile: file,
      });

    try {
      // Act
      start([spec]);
      const afterValid = JSON.parse(readFileSync(file, "utf8"));
      expect(() => start([broken])).toThrow(/State machine definition is invalid/);

      // Assess: one key (the definition's hash), unchanged by the refused start
      expect(afterValid).toEqual([expect.stringMatching(/^[A-Za-z0-9_-]{43}$/)]);
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(afterValid);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
