import { Duration } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MODEL_ID, HAIKU_MODEL_ID } from "../../lib/constructs/pattern-loop";
import { PLAN_EXECUTE_STATES } from "../../lib/constructs/plan-execute-definition";
import { PlanExecuteLoop, type PlanExecuteLoopProps } from "../../lib/constructs/plan-execute-loop";
import {
  badStack,
  CUSTOM_MODEL_RESOURCES,
  CUSTOM_MODEL_VARIABLES,
  CUSTOM_MODELS,
  choiceRoutes,
  expectInvokesItsSteps,
  expectModelStepTask,
  expectOnlyModelStepsCallBedrock,
  expectStandardStateMachine,
  loopFunctions,
  profileResources,
  SKELETON_ROUTES,
  sharedFunction,
  stepsSharedWithReact,
  synthesisOf,
} from "./loop-test-support";
import {
  type AslDefinition,
  aslValidationErrors,
  definitionOf,
  goalStoreVariables,
  onlyResource,
  resourcesAllowedTo,
  stateMachineArn,
  stateMachineNamed,
  stateOf,
  type TemplateResource,
} from "./template-queries";

/** The pattern's own steps: the only functions that may call Bedrock. */
const MODEL_STEPS = [
  PLAN_EXECUTE_STATES.observe,
  PLAN_EXECUTE_STATES.plan,
  PLAN_EXECUTE_STATES.execute,
] as const;
/** The loop under test, made without a LoopSteps: its shared steps are its own (construct `Steps`). */
const LOOP_ID = "PlanExecuteLoop";
const { functionOf } = loopFunctions(MODEL_STEPS);

const CUSTOM_PROPS: Omit<PlanExecuteLoopProps, "goalTable" | "steps"> = {
  stateMachineName: "custom-plan-execute",
  ...CUSTOM_MODELS,
  continueAsNewAfter: 9,
  replanCooldown: Duration.minutes(2),
  maxConcurrency: 2,
};

/**
 * The one synth of this file: a PlanExecuteLoop with its own shared steps, and a ReactLoop and a
 * custom PlanExecuteLoop sharing one LoopSteps, as the stack composes them.
 */
const synthesize = synthesisOf((stack, goalTable) => {
  new PlanExecuteLoop(stack, LOOP_ID, { goalTable });
  const steps = stepsSharedWithReact(stack, goalTable);
  new PlanExecuteLoop(stack, "CustomLoop", { goalTable, steps, ...CUSTOM_PROPS });
});

describe("PlanExecuteLoop", () => {
  let template: Template;
  let stateMachine: TemplateResource;
  let definition: AslDefinition;

  beforeAll(() => {
    // Prepare + Act
    template = synthesize();
    [, stateMachine] = stateMachineNamed(template, "TestStack-plan-execute");
    definition = definitionOf(stateMachine);
  });

  it("is a Standard JSONPath state machine named after the stack, with exactly the skeleton's states and its own four", () => {
    // Assess
    expectStandardStateMachine(stateMachine, definition);
    // RunsOnVersion adds the deployed version to the run's input; LoadGoal records it.
    expect(definition.StartAt).toBe("RunsOnVersion");
    expect(stateOf(definition, "RunsOnVersion").Next).toBe("LoadGoal");
    // ExecuteBatchStep lives inside the ExecuteBatch Map's item processor.
    const inBranch: readonly string[] = [
      PLAN_EXECUTE_STATES.executeBatchStep,
      PLAN_EXECUTE_STATES.executeBatchStepDeferred,
    ];
    const topLevel = Object.values(PLAN_EXECUTE_STATES).filter((name) => !inBranch.includes(name));
    expect(Object.keys(definition.States).sort()).toEqual(topLevel.sort());
    expect(Object.keys(definition.States)).toEqual(
      expect.arrayContaining(["Observe", "Plan", "Execute", "ReplanCooldown"]),
    );
  });

  it("is accepted by asl-validator, ARNs and paths checked", () => {
    // Assess
    expect(aslValidationErrors(definition)).toBe("");
  });

  it("routes verify → Observe, plan → Plan, execute → Execute, decisions to AwaitApproval, sub-goals to AwaitSubgoals, and Act back through NextAction", () => {
    // Act
    const choice = stateOf(definition, "NextAction");
    const routes = choiceRoutes(choice);

    // Assess
    expect(routes).toEqual({
      verify: "Observe",
      plan: "Plan",
      execute: "Execute",
      execute_batch: "ExecuteBatch",
      replan_cooldown: "ReplanCooldown",
      ...SKELETON_ROUTES,
    });
    expect(choice.Default).toBe("UnknownNext");
    for (const state of [...MODEL_STEPS, "LoadGoal", "ContinueAsNew", "AwaitApproval", "ApprovalExpired"]) {
      expect(stateOf(definition, state).Next, state).toBe("NextAction");
    }
    expect(stateOf(definition, "Act").Next).toBe("NextAction");
  });

  it("makes a batch's turns in a Map over $.batch, 4 at once by default, each branch Execute's function with a step id, then Execute", () => {
    // Prepare
    const map = stateOf(definition, "ExecuteBatch");
    const processor = map.ItemProcessor as AslDefinition;
    const branch = stateOf(processor, "ExecuteBatchStep");

    // Assess: the Map's items, their payload, its concurrency and where it goes
    expect(map).toMatchObject({
      Type: "Map",
      ItemsPath: "$.batch",
      ItemSelector: {
        "goalId.$": "$.goalId",
        "runId.$": "$.runId",
        "iteration.$": "$.iteration",
        "stepId.$": "$$.Map.Item.Value",
      },
      MaxConcurrency: 4,
      ResultPath: null,
      Next: "Execute",
      Catch: [{ ErrorEquals: ["States.ALL"], ResultPath: "$.error", Next: "RecordFailure" }],
    });
    // Assess: the branch is the Execute function, retried like a step, caught by the Map only but
    // for Lambda's concurrency, which leaves the turn to Execute
    expect(processor.StartAt).toBe("ExecuteBatchStep");
    expect(branch.Type).toBe("Task");
    expect(branch.End).toBe(true);
    expect(branch.Catch).toEqual([
      {
        ErrorEquals: ["Lambda.TooManyRequestsException"],
        ResultPath: null,
        Next: "ExecuteBatchStepDeferred",
      },
    ]);
    expect(stateOf(processor, "ExecuteBatchStepDeferred")).toMatchObject({ Type: "Pass", End: true });
    expect(JSON.stringify(branch.Retry)).toContain("Runtime.ExitError");
    expect(branch.Resource).toBeDefined();
    expect(branch.Resource).toBe(stateOf(definition, "Execute").Resource);
    expect(branch.Parameters).toBeUndefined();
  });

  it("takes the Map's MaxConcurrency from maxConcurrency", () => {
    // Prepare
    const [, custom] = stateMachineNamed(template, "custom-plan-execute");

    // Assess
    expect(stateOf(definitionOf(custom), "ExecuteBatch").MaxConcurrency).toBe(2);
  });

  it("rejects a maxConcurrency that is not a whole number from 1 to 20 before creating anything", () => {
    for (const maxConcurrency of [0, 21, 1.5]) {
      // Prepare
      const { stack, goalTable } = badStack();

      // Act + Assess
      expect(() => new PlanExecuteLoop(stack, "PlanExecuteLoop", { goalTable, maxConcurrency })).toThrow(
        /maxConcurrency must be a whole number from 1 to 20/,
      );
      expect(stack.node.tryFindChild("PlanExecuteLoop")).toBeUndefined();
    }
  });

  it("cools a replan down in a Wait state that reads its seconds from the payload, then plans", () => {
    // Assess
    expect(stateOf(definition, "ReplanCooldown")).toMatchObject({
      Type: "Wait",
      SecondsPath: "$.cooldownSeconds",
      Next: "Plan",
    });
  });

  it("invokes each pattern step's own function, retried on transient errors only, everything else recorded", () => {
    // Assess
    for (const state of MODEL_STEPS) {
      expectModelStepTask(template, definition, state, functionOf(template, LOOP_ID, state)[0]);
    }
  });

  it("gives Observe, Plan and Execute the goal store, the model tiers, the replan cooldown and (Execute) Act's tool settings they read", () => {
    // Prepare
    const common = {
      ...goalStoreVariables(template),
      POWERTOOLS_SERVICE_NAME: "goal-loops",
      POWERTOOLS_LOG_LEVEL: "INFO",
      HEAVY_MODEL_ID: DEFAULT_MODEL_ID,
      FAST_MODEL_ID: HAIKU_MODEL_ID,
      CONTINUE_AS_NEW_AFTER: "50",
    };

    // Act
    const environments = Object.fromEntries(
      MODEL_STEPS.map((state) => [state, functionOf(template, LOOP_ID, state)[1].Properties.Environment]),
    );

    // Assess
    expect(environments).toEqual({
      Observe: { Variables: { ...common, REPLAN_COOLDOWN_SECONDS: "30" } },
      Plan: { Variables: { ...common, REPLAN_COOLDOWN_SECONDS: "30" } },
      // Execute runs an ungated turn's tool calls itself: the tool runner's settings, as Act has them.
      Execute: { Variables: { ...common, HTTP_ALLOWED_HOSTS: "", TOOL_OUTPUT_INLINE_BYTES: "4096" } },
    });
    for (const state of MODEL_STEPS) {
      expect(functionOf(template, LOOP_ID, state)[1].Properties, state).toMatchObject({
        MemorySize: 1024,
        // The model call's 6 minutes, plus Act's 2 for the step that acts.
        Timeout: state === "Execute" ? 480 : 360,
        Runtime: "nodejs22.x",
      });
    }
  });

  it("lets only Observe, Plan and Execute call Bedrock, and only the allow-listed models", () => {
    // Prepare
    const expected = profileResources([DEFAULT_MODEL_ID, HAIKU_MODEL_ID]);

    // Assess
    expectOnlyModelStepsCallBedrock(template, LOOP_ID, MODEL_STEPS, expected);
  });

  it("lets the state machine invoke exactly its three steps and the seven shared ones", () => {
    // Assess
    expectInvokesItsSteps(template, stateMachine, LOOP_ID, MODEL_STEPS);
  });

  it("shares one LoopSteps with ReactLoop: the same Act, and run control over both machines by name", () => {
    // Prepare
    const react = definitionOf(stateMachineNamed(template, "shared-react")[1]);
    const planExecute = definitionOf(stateMachineNamed(template, "custom-plan-execute")[1]);
    const continueAsNew = sharedFunction(template, "ContinueAsNew");

    // Act
    const startable = resourcesAllowedTo(template, continueAsNew, "states:StartExecution");

    // Assess
    expect(stateOf(planExecute, "Act").Resource).toBe(stateOf(react, "Act").Resource);
    expect(startable.sort()).toEqual(
      [stateMachineArn("custom-plan-execute"), stateMachineArn("shared-react")].sort(),
    );
  });

  it("passes custom model tiers, the continue-as-new threshold and the cooldown to its steps", () => {
    // Prepare
    const [, observe] = onlyResource(template, "AWS::Lambda::Function", "CustomLoopObserveFunction");

    // Act
    const allowed = resourcesAllowedTo(template, observe, "bedrock:InvokeModel");

    // Assess
    expect(observe.Properties.Environment).toMatchObject({
      Variables: {
        ...CUSTOM_MODEL_VARIABLES,
        CONTINUE_AS_NEW_AFTER: "9",
        REPLAN_COOLDOWN_SECONDS: "120",
      },
    });
    expect(allowed.sort()).toEqual(CUSTOM_MODEL_RESOURCES);
  });

  it("rejects a cooldown that is not whole seconds from 1 to 3600 before creating anything", () => {
    // Prepare
    const { stack, goalTable } = badStack();

    // Act + Assess
    expect(
      () => new PlanExecuteLoop(stack, "PlanExecuteLoop", { goalTable, replanCooldown: Duration.hours(2) }),
    ).toThrow(/replanCooldown must be a whole number of seconds from 1 to 3600/);
    expect(stack.node.tryFindChild("PlanExecuteLoop")).toBeUndefined();
  });
});
