import type { Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { FATAL_MODEL_ERRORS, RETRYABLE_MODEL_ERRORS } from "../../lambdas/adapters/bedrock/bedrock-errors";
import { GoalStoreUnavailableError } from "../../lambdas/adapters/shared/store-errors";
import { NEXT_STEPS } from "../../lambdas/core/loop/step-result";
import { ConcurrentModificationError } from "../../lambdas/core/ports/goal-store";
import { DEFAULT_MODEL_ID, HAIKU_MODEL_ID } from "../../lib/constructs/pattern-loop";
import { REACT_STATES } from "../../lib/constructs/react-definition";
import { ReactLoop, type ReactLoopProps } from "../../lib/constructs/react-loop";
import {
  badStack,
  choiceRoutes,
  expectInvokesExactly,
  expectInvokesOnlyModels,
  expectStandardStateMachine,
  loopFunctions,
  profileResources,
  SKELETON_ROUTES,
  SKELETON_STATES,
  synthesisOf,
} from "./loop-test-support";
import {
  type AllowStatement,
  type AslDefinition,
  allowStatementsOf,
  allowsService,
  arnOf,
  aslValidationErrors,
  definitionOf,
  functionVersionArn,
  goalStoreVariables,
  onlyResource,
  resourcesAllowed,
  resourcesOf,
  roleOf,
  stateMachineNamed,
  stateOf,
  type TemplateResource,
} from "./template-queries";

const LAMBDA_SERVICE_ERRORS = [
  "Lambda.ServiceException",
  "Lambda.AWSLambdaException",
  "Lambda.SdkClientException",
];
/** Lambda's concurrency: two quick attempts, then the run waits for capacity instead of failing. */
const LAMBDA_CAPACITY_RETRY = {
  ErrorEquals: ["Lambda.TooManyRequestsException"],
  IntervalSeconds: 1,
  MaxAttempts: 2,
  BackoffRate: 2,
  JitterStrategy: "FULL",
};
const LAMBDA_CAPACITY_LONG_RETRY = {
  ErrorEquals: ["Lambda.TooManyRequestsException"],
  IntervalSeconds: 5,
  MaxAttempts: 10,
  BackoffRate: 2,
  MaxDelaySeconds: 300,
  JitterStrategy: "FULL",
};
/** A step whose process died (crash, out of memory) is retried: every step is idempotent. */
const CRASH_ERRORS = ["Runtime.ExitError", "Lambda.Unknown"];
const STORE_ERRORS = ["ConcurrentModificationError", "GoalStoreUnavailableError"];
const STEP_TASKS = [
  REACT_STATES.loadGoal,
  REACT_STATES.verifyAndReason,
  REACT_STATES.act,
  REACT_STATES.continueAsNew,
] as const;

/** Construct IDs of the functions under a ReactLoop, by task state. */
const FUNCTION_IDS: Record<(typeof STEP_TASKS)[number] | "RecordFailure" | "ApprovalExpired", string> = {
  LoadGoal: "LoadGoal",
  VerifyAndReason: "VerifyAndReason",
  Act: "Act",
  ContinueAsNew: "ContinueAsNew",
  RecordFailure: "RecordFailure",
  ApprovalExpired: "ApprovalExpired",
};

const CUSTOM_PROPS: Omit<ReactLoopProps, "goalTable"> = {
  stateMachineName: "custom-react",
  heavyModelId: "amazon.nova-lite-v1:0",
  fastModelId: "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
  allowedModelIds: ["amazon.nova-lite-v1:0", "eu.anthropic.claude-haiku-4-5-20251001-v1:0"],
  continueAsNewAfter: 10,
  httpAllowedHosts: ["example.com", "api.github.com"],
  toolOutputInlineBytes: 8192,
  logLevel: "DEBUG",
};

/**
 * The one synth of this file, shared by its suites: a default loop and a loop with every prop set,
 * side by side.
 */
const synthesize = synthesisOf((stack, goalTable) => {
  new ReactLoop(stack, "ReactLoop", { goalTable });
  new ReactLoop(stack, "CustomLoop", { goalTable, ...CUSTOM_PROPS });
});

/** A loop's function: the pattern's own step, or one of the shared steps the loop made (`Steps`). */
const {
  functionOf,
  prefix: functionPrefix,
  statementsOf: loopStatementsOf,
} = loopFunctions(["VerifyAndReason"]);

describe("ReactLoop with default props", () => {
  let template: Template;
  let stateMachineId: string;
  let stateMachine: TemplateResource;
  let definition: AslDefinition;

  beforeAll(() => {
    // Prepare + Act
    template = synthesize();
    [stateMachineId, stateMachine] = stateMachineNamed(template, "TestStack-react");
    definition = definitionOf(stateMachine);
  });

  it("is a Standard state machine named after the stack, traced, logging errors without execution data", () => {
    // Assess
    expectStandardStateMachine(stateMachine, definition);
  });

  it("has exactly the plan's states and starts at RunsOnVersion, then LoadGoal", () => {
    // Assess: RunsOnVersion adds the deployed version to the run's input; LoadGoal records it.
    expect(definition.StartAt).toBe("RunsOnVersion");
    expect(stateOf(definition, "RunsOnVersion")).toMatchObject({
      Type: "Pass",
      Result: expect.stringMatching(/^\d+\.\d+\.\d+-[0-9a-f]{8}$/),
      ResultPath: "$.version",
      Next: "LoadGoal",
    });
    expect(Object.keys(definition.States).sort()).toEqual([...SKELETON_STATES, "VerifyAndReason"].sort());
  });

  it("is accepted by asl-validator, ARNs and paths checked", () => {
    // Assess
    expect(aslValidationErrors(definition)).toBe("");
  });

  it("answers to NextAction from LoadGoal, VerifyAndReason, Act, AwaitSubgoals and ContinueAsNew", () => {
    // Assess
    expect(stateOf(definition, "LoadGoal").Next).toBe("NextAction");
    expect(stateOf(definition, "VerifyAndReason").Next).toBe("NextAction");
    // Act answers `verify`, or `subgoal` when the turn's sub-goals must end before it answers their calls.
    expect(stateOf(definition, "Act").Next).toBe("NextAction");
    expect(stateOf(definition, "AwaitSubgoals").Next).toBe("NextAction");
    expect(stateOf(definition, "ContinueAsNew").Next).toBe("NextAction");
    // A failed goal fails the execution in RecordFailure itself: a redrive re-runs it into NextAction.
    expect(stateOf(definition, "RecordFailure").Next).toBe("NextAction");
    expect(stateOf(definition, "UnknownNext").Next).toBe("RecordFailure");
  });

  it("routes every next step a step can answer, and anything else (or nothing) to UnknownNext", () => {
    // Prepare
    const expectedTarget: Record<string, string> = {
      verify: "VerifyAndReason",
      ...SKELETON_ROUTES,
    };
    const choice = stateOf(definition, "NextAction");

    // Act
    const routes = choiceRoutes(choice);

    // Assess
    expect(routes).toEqual(expectedTarget);
    // The other patterns' steps (plan, execute, reflect …) are not routes of ReAct's machine.
    const patternSteps = ["plan", "replan_cooldown", "execute", "execute_batch", "reflect", "attempt"];
    expect([...NEXT_STEPS].filter((next) => !patternSteps.includes(next)).sort()).toEqual(
      Object.keys(expectedTarget).sort(),
    );
    expect(choice.Choices?.[0]).toMatchObject({ Variable: "$.next", IsPresent: false, Next: "UnknownNext" });
    expect(choice.Default).toBe("UnknownNext");
    for (const next of ["Completed", "Paused", "Terminated", "Stopped", "Continued"]) {
      expect(stateOf(definition, next).Type).toBe("Succeed");
    }
  });

  it("invokes each step's own function with the state input as payload (payloadResponseOnly)", () => {
    // Assess
    for (const [state, functionId] of Object.entries(FUNCTION_IDS)) {
      const [logicalId] = functionOf(template, "ReactLoop", functionId);
      const task = stateOf(definition, state);
      expect(task.Type).toBe("Task");
      expect(task.Resource, state).toBe(functionVersionArn(template, logicalId));
      if (state !== "ContinueAsNew") expect(task.Parameters, state).toBeUndefined();
    }
  });

  it("waits for approvals on a task token with TimeoutSeconds, expiring on States.Timeout", () => {
    // Prepare
    const [requestApprovalId] = functionOf(template, "ReactLoop", "RequestApproval");

    // Act
    const task = stateOf(definition, "AwaitApproval");

    // Assess
    expect(task.Resource).toBe("arn:<AWS::Partition>:states:::lambda:invoke.waitForTaskToken");
    expect(task.Parameters).toEqual({
      FunctionName: functionVersionArn(template, requestApprovalId),
      Payload: {
        "goalId.$": "$.goalId",
        "runId.$": "$.runId",
        "iteration.$": "$.iteration",
        "next.$": "$.next",
        "taskToken.$": "$$.Task.Token",
      },
    });
    expect(task.TimeoutSeconds).toBe(86_400);
    expect(task.Next).toBe("NextAction");
    expect(task.Catch).toEqual([
      { ErrorEquals: ["States.Timeout"], ResultPath: "$.error", Next: "ApprovalExpired" },
      { ErrorEquals: ["Lambda.TooManyRequestsException"], ResultPath: "$.error", Next: "LambdaThrottled" },
      { ErrorEquals: ["States.ALL"], ResultPath: "$.error", Next: "RecordFailure" },
    ]);
    expect(stateOf(definition, "ApprovalExpired").Next).toBe("NextAction");
  });

  it("hands ContinueAsNew the run position and its own state machine's ARN from the context object", () => {
    // Assess
    expect(stateOf(definition, "ContinueAsNew").Parameters).toEqual({
      "goalId.$": "$.goalId",
      "runId.$": "$.runId",
      "iteration.$": "$.iteration",
      "next.$": "$.next",
      "stateMachineArn.$": "$$.StateMachine.Id",
    });
  });

  it("gives each step two quick attempts on Lambda's concurrency first, then one Retry on Lambda, crash, model (but throttling) and store errors", () => {
    // Assess
    for (const state of STEP_TASKS) {
      expect(stateOf(definition, state).Retry, state).toEqual([
        LAMBDA_CAPACITY_RETRY,
        {
          ErrorEquals: [
            ...LAMBDA_SERVICE_ERRORS,
            ...CRASH_ERRORS,
            ...RETRYABLE_MODEL_ERRORS.filter((name) => name !== "ThrottlingException"),
            ...STORE_ERRORS,
            "ExecutionStartThrottled",
          ],
          IntervalSeconds: 2,
          MaxAttempts: 3,
          BackoffRate: 2,
          JitterStrategy: "FULL",
        },
      ]);
    }
  });

  it("never retries Bedrock's ThrottlingException: the step turns it into a capacity wait", () => {
    // Act
    const retried = Object.values(definition.States).flatMap((state) =>
      (state.Retry ?? []).flatMap((retry) => retry.ErrorEquals),
    );

    // Assess
    expect(retried).not.toContain("ThrottlingException");
  });

  it("waits for capacity in a Wait state, then routes back to the step that asked", () => {
    // Act
    const nextAction = stateOf(definition, "NextAction");
    const wait = stateOf(definition, "WaitForCapacity");
    const resume = stateOf(definition, "ResumeAfterCapacity");

    // Assess
    expect(nextAction.Choices).toContainEqual({
      Variable: "$.next",
      StringEquals: "wait_for_capacity",
      Next: "WaitForCapacity",
    });
    expect(wait).toMatchObject({ Type: "Wait", SecondsPath: "$.waitSeconds", Next: "ResumeAfterCapacity" });
    expect(resume).toMatchObject({
      Type: "Pass",
      Parameters: {
        "goalId.$": "$.goalId",
        "runId.$": "$.runId",
        "iteration.$": "$.iteration",
        "next.$": "$.resume",
      },
      Next: "NextAction",
    });
  });

  it("sends a step Lambda's concurrency refused to WaitForCapacity by its own route, after a random 5 to 30 s", () => {
    // Act
    const throttled = stateOf(definition, "LambdaThrottled");

    // Assess
    for (const state of [REACT_STATES.verifyAndReason, REACT_STATES.act, REACT_STATES.continueAsNew]) {
      expect(stateOf(definition, state).Catch?.[0], state).toEqual({
        ErrorEquals: ["Lambda.TooManyRequestsException"],
        ResultPath: "$.error",
        Next: "LambdaThrottled",
      });
    }
    expect(throttled).toMatchObject({
      Type: "Pass",
      Parameters: {
        "goalId.$": "$.goalId",
        "runId.$": "$.runId",
        "iteration.$": "$.iteration",
        "resume.$": "$.next",
        "waitSeconds.$": "States.MathRandom(5, 30)",
      },
      Next: "WaitForCapacity",
    });
    // LoadGoal has no route back (the execution's input has no `next`): a Wait of its own.
    expect(stateOf(definition, "LoadGoal").Catch?.[0]).toEqual({
      ErrorEquals: ["Lambda.TooManyRequestsException"],
      ResultPath: null,
      Next: "LoadGoalThrottled",
    });
    expect(stateOf(definition, "LoadGoalThrottled")).toMatchObject({
      Type: "Wait",
      Seconds: 30,
      Next: "LoadGoal",
    });
  });

  it("never retries a fatal model error", () => {
    // Act
    const retried = STEP_TASKS.flatMap((state) => stateOf(definition, state).Retry ?? []).flatMap(
      (r) => r.ErrorEquals,
    );

    // Assess
    for (const fatal of FATAL_MODEL_ERRORS) expect(retried).not.toContain(fatal);
    expect(retried).not.toContain("States.ALL");
  });

  it("retries on the names the store errors really carry", () => {
    // Assess
    expect(STORE_ERRORS).toEqual([
      new ConcurrentModificationError("x").name,
      new GoalStoreUnavailableError("x").name,
    ]);
  });

  it("catches everything else into RecordFailure, keeping the input and putting the error at $.error", () => {
    // Assess
    for (const state of STEP_TASKS) {
      expect(stateOf(definition, state).Catch?.at(-1), state).toEqual({
        ErrorEquals: ["States.ALL"],
        ResultPath: "$.error",
        Next: "RecordFailure",
      });
    }
    expect(stateOf(definition, "UnknownNext")).toMatchObject({
      Type: "Pass",
      ResultPath: "$.error",
      Result: { Error: "UnknownNextStep" },
    });
  });

  it("records a failure with retries on infrastructure errors only, then fails with the caught error", () => {
    // Act
    const recordFailure = stateOf(definition, "RecordFailure");

    // Assess
    expect(recordFailure.Retry).toEqual([
      LAMBDA_CAPACITY_LONG_RETRY,
      {
        ErrorEquals: [...LAMBDA_SERVICE_ERRORS, ...CRASH_ERRORS, ...STORE_ERRORS],
        IntervalSeconds: 2,
        MaxAttempts: 3,
        BackoffRate: 2,
        JitterStrategy: "FULL",
      },
    ]);
    expect(recordFailure.Catch).toBeUndefined();
    // Its answer (the redriven run's next step) replaces the state: GoalFailed is never retried.
    expect(recordFailure.ResultPath).toBeUndefined();
    expect(JSON.stringify(recordFailure.Retry)).not.toContain("GoalFailed");
    expect(Object.values(definition.States).some((state) => state.Type === "Fail")).toBe(false);
  });

  it("bounds each task a little past its function's timeout", () => {
    // Assess
    expect(stateOf(definition, "LoadGoal").TimeoutSeconds).toBe(60);
    expect(stateOf(definition, "VerifyAndReason").TimeoutSeconds).toBe(510);
    expect(stateOf(definition, "Act").TimeoutSeconds).toBe(150);
  });

  it("runs every function on Node.js 22, ARM, ESM bundle, X-Ray, JSON logs into its own log group", () => {
    // Assess
    for (const [state, functionId] of Object.entries(FUNCTION_IDS)) {
      const [, fn] = functionOf(template, "ReactLoop", functionId);
      expect(fn.Properties, state).toMatchObject({
        Runtime: "nodejs22.x",
        Architectures: ["arm64"],
        Handler: "index.handler",
        TracingConfig: { Mode: "Active" },
        LoggingConfig: {
          LogFormat: "JSON",
          LogGroup: { Ref: expect.stringMatching(`^${functionPrefix("ReactLoop", functionId)}LogGroup`) },
        },
      });
    }
    template.hasResourceProperties("AWS::Logs::LogGroup", { RetentionInDays: 30 });
  });

  it("sizes the functions: 1024 MB and 6 + 2 minutes to reason and act, 2 minutes to act, 512 MB and 30 s otherwise", () => {
    // Act
    const sizes = Object.fromEntries(
      Object.entries(FUNCTION_IDS).map(([state, functionId]) => {
        const [, fn] = functionOf(template, "ReactLoop", functionId);
        return [state, [fn.Properties.MemorySize, fn.Properties.Timeout]];
      }),
    );

    // Assess
    expect(sizes).toEqual({
      LoadGoal: [512, 30],
      VerifyAndReason: [1024, 480],
      Act: [512, 120],
      ContinueAsNew: [512, 30],
      RecordFailure: [512, 30],
      ApprovalExpired: [512, 30],
    });
  });

  it("sets exactly the environment each handler reads", () => {
    // Act
    const environments = Object.fromEntries(
      Object.entries(FUNCTION_IDS).map(([state, functionId]) => {
        const [, fn] = functionOf(template, "ReactLoop", functionId);
        return [state, fn.Properties.Environment];
      }),
    );

    // Assess
    const common = {
      ...goalStoreVariables(template),
      POWERTOOLS_SERVICE_NAME: "goal-loops",
      POWERTOOLS_LOG_LEVEL: "INFO",
    };
    expect(environments).toEqual({
      LoadGoal: { Variables: common },
      VerifyAndReason: {
        Variables: {
          ...common,
          HEAVY_MODEL_ID: DEFAULT_MODEL_ID,
          FAST_MODEL_ID: HAIKU_MODEL_ID,
          CONTINUE_AS_NEW_AFTER: "50",
          // It acts on a turn that needs no approval: the tool runner's settings, as Act has them.
          HTTP_ALLOWED_HOSTS: "",
          TOOL_OUTPUT_INLINE_BYTES: "4096",
        },
      },
      Act: { Variables: { ...common, HTTP_ALLOWED_HOSTS: "", TOOL_OUTPUT_INLINE_BYTES: "4096" } },
      ContinueAsNew: { Variables: common },
      RecordFailure: { Variables: common },
      ApprovalExpired: { Variables: common },
    });
    const [, requestApproval] = functionOf(template, "ReactLoop", "RequestApproval");
    expect(requestApproval.Properties.Environment).toEqual({
      Variables: { ...common, APPROVAL_TIMEOUT_SECONDS: "86400" },
    });
  });

  describe("least privilege", () => {
    function statementsOf(functionId: string): AllowStatement[] {
      return loopStatementsOf(template, "ReactLoop", functionId);
    }

    it("lets every step read and write the goal table and nothing uses a managed policy", () => {
      // Prepare
      const [tableId] = onlyResource(template, "AWS::DynamoDB::Table");

      // Assess
      for (const functionId of Object.values(FUNCTION_IDS)) {
        expect(resourcesAllowed(statementsOf(functionId), "dynamodb:PutItem"), functionId).toEqual([
          arnOf(tableId),
          `${arnOf(tableId)}/index/*`,
        ]);
      }
      for (const [id, role] of resourcesOf(template, "AWS::IAM::Role")) {
        expect(role.Properties.ManagedPolicyArns, id).toBeUndefined();
      }
    });

    it("lets each function write only to its own log group", () => {
      // Assess
      for (const functionId of Object.values(FUNCTION_IDS)) {
        const [logGroupId] = onlyResource(
          template,
          "AWS::Logs::LogGroup",
          `${functionPrefix("ReactLoop", functionId)}LogGroup`,
        );
        expect(resourcesAllowed(statementsOf(functionId), "logs:PutLogEvents"), functionId).toEqual([
          arnOf(logGroupId),
        ]);
      }
    });

    it("lets VerifyAndReason call only the allow-listed models, inference profile and foundation model both", () => {
      // Assess
      expectInvokesOnlyModels(
        statementsOf("VerifyAndReason"),
        profileResources([DEFAULT_MODEL_ID, HAIKU_MODEL_ID]),
      );
    });

    it("gives Act, LoadGoal and RecordFailure neither Bedrock nor Step Functions", () => {
      // Assess
      for (const functionId of ["Act", "LoadGoal", "RecordFailure"]) {
        expect(allowsService(statementsOf(functionId), "bedrock"), functionId).toBe(false);
        expect(allowsService(statementsOf(functionId), "states"), functionId).toBe(false);
      }
      expect(allowsService(statementsOf("VerifyAndReason"), "states")).toBe(false);
      expect(allowsService(statementsOf("ContinueAsNew"), "bedrock")).toBe(false);
    });

    it("lets ContinueAsNew start this state machine only, by its fixed name", () => {
      // Act
      const statements = statementsOf("ContinueAsNew").filter((s) =>
        s.actions.some((a) => a.startsWith("states:")),
      );

      // Assess
      expect(statements).toEqual([
        {
          actions: ["states:StartExecution"],
          resources: [
            "arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:TestStack-react",
          ],
        },
      ]);
    });

    it("breaks the dependency cycle: the state machine waits for the StartExecution policy, the function does not", () => {
      // Prepare
      const [policyId] = onlyResource(template, "AWS::IAM::Policy", "ReactLoopContinueAsNewStartExecution");
      const [, fn] = functionOf(template, "ReactLoop", "ContinueAsNew");

      // Assess
      expect([stateMachine.DependsOn].flat()).toContain(policyId);
      expect([fn.DependsOn].flat()).not.toContain(policyId);
    });

    it("lets RequestApproval answer this state machine's task tokens only, by its fixed name", () => {
      // Act
      const statements = statementsOf("RequestApproval");

      // Assess
      const arn = "arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:TestStack-react";
      expect(resourcesAllowed(statements, "states:SendTaskSuccess")).toEqual([arn]);
      expect(resourcesAllowed(statements, "states:StartExecution")).toEqual([]);
    });

    it("lets the state machine invoke exactly its eight functions", () => {
      // Prepare
      const functionIds = [...Object.values(FUNCTION_IDS), "RequestApproval", "AwaitSubgoals"].map(
        (id) => functionOf(template, "ReactLoop", id)[0],
      );

      // Assess
      expectInvokesExactly(template, stateMachine, functionIds);
      expect(stateMachineId).toMatch(/^ReactLoopStateMachine/);
    });
  });
});

describe("ReactLoop with props", () => {
  let template: Template;

  beforeAll(() => {
    // Prepare + Act
    template = synthesize();
  });

  it("names the state machine as asked and passes the settings to the handlers", () => {
    // Act
    const [, verify] = functionOf(template, "CustomLoop", "VerifyAndReason");
    const [, act] = functionOf(template, "CustomLoop", "Act");

    // Assess
    stateMachineNamed(template, "custom-react");
    expect(verify.Properties.Environment).toMatchObject({
      Variables: {
        HEAVY_MODEL_ID: "amazon.nova-lite-v1:0",
        FAST_MODEL_ID: "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
        CONTINUE_AS_NEW_AFTER: "10",
        POWERTOOLS_LOG_LEVEL: "DEBUG",
        HTTP_ALLOWED_HOSTS: "example.com,api.github.com",
        TOOL_OUTPUT_INLINE_BYTES: "8192",
      },
    });
    expect(act.Properties.Environment).toMatchObject({
      Variables: { HTTP_ALLOWED_HOSTS: "example.com,api.github.com", TOOL_OUTPUT_INLINE_BYTES: "8192" },
    });
  });

  it("allows a foundation model in this region only, and an inference profile in its geography", () => {
    // Prepare
    const [, verify] = functionOf(template, "CustomLoop", "VerifyAndReason");

    // Act
    const statements = allowStatementsOf(template, roleOf(verify));

    // Assess
    expectInvokesOnlyModels(
      statements,
      [
        "arn:<AWS::Partition>:bedrock:<AWS::Region>::foundation-model/amazon.nova-lite-v1:0",
        "arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/eu.anthropic.claude-haiku-4-5-20251001-v1:0",
        "arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0",
      ].sort(),
    );
    const throughProfile = statements.find((statement) =>
      statement.resources.includes(
        "arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0",
      ),
    );
    expect(throughProfile?.conditions).toEqual({
      StringEquals: {
        "bedrock:InferenceProfileArn": [
          "arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/eu.anthropic.claude-haiku-4-5-20251001-v1:0",
        ],
      },
    });
  });

  it.each<[string, Partial<ReactLoopProps>, RegExp]>([
    ["a continue-as-new threshold of 0", { continueAsNewAfter: 0 }, /continueAsNewAfter/],
    [
      "a continue-as-new threshold near the history limit",
      { continueAsNewAfter: 1001 },
      /continueAsNewAfter/,
    ],
    ["a fractional continue-as-new threshold", { continueAsNewAfter: 2.5 }, /continueAsNewAfter/],
    [
      "a scripted fixture model id",
      { heavyModelId: "scripted:happy", allowedModelIds: ["scripted:happy"] },
      /Bedrock model id/,
    ],
    [
      "a heavy model outside the allow-list",
      { allowedModelIds: [HAIKU_MODEL_ID] },
      /allowedModelIds must include/,
    ],
    ["an empty allow-list", { allowedModelIds: [] }, /at least one model/],
    [
      "a URL as an allowed host",
      { httpAllowedHosts: ["https://example.com"] },
      /^ReactLoop: httpAllowedHosts/,
    ],
    ["a host with a port", { httpAllowedHosts: ["example.com:8080"] }, /httpAllowedHosts/],
    ["an inline bound of 0 bytes", { toolOutputInlineBytes: 0 }, /toolOutputInlineBytes/],
    [
      "an inline bound Act's tool runner refuses",
      { toolOutputInlineBytes: 255 },
      /^ReactLoop: toolOutputInlineBytes .*from 256 to/,
    ],
    ["an inline bound past 64 KiB", { toolOutputInlineBytes: 65_537 }, /toolOutputInlineBytes/],
    ["a state machine name with a colon", { stateMachineName: "react:loop" }, /stateMachineName/],
    ["a state machine name of 81 characters", { stateMachineName: "r".repeat(81) }, /stateMachineName/],
    [
      "a quota of no requests",
      {
        modelQuotas: {
          "global.anthropic.claude-sonnet-5-5": { requestsPerMinute: 0, tokensPerMinute: 100_000 },
        },
      },
      /modelQuotas.global.anthropic.claude-sonnet-5-5.requestsPerMinute must be a whole number of requests per minute from 1 to 1000000/,
    ],
    [
      "a burst of two minutes",
      {
        modelQuotas: {
          "anthropic.*": { requestsPerMinute: 10, tokensPerMinute: 100_000, burstSeconds: 120 },
        },
      },
      /modelQuotas.anthropic.\*.burstSeconds must be a whole number of seconds from 1 to 60/,
    ],
  ])("rejects %s before creating anything", (_case, props, message) => {
    // Prepare
    const { stack, goalTable } = badStack();

    // Act + Assess
    expect(() => new ReactLoop(stack, "ReactLoop", { goalTable, ...props })).toThrow(message);
    expect(stack.node.tryFindChild("ReactLoop")?.node.children ?? []).toHaveLength(0);
  });
});
