import type { Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MODEL_ID, HAIKU_MODEL_ID } from "../../lib/constructs/pattern-loop";
import { REFLEXION_STATES } from "../../lib/constructs/reflexion-definition";
import { ReflexionLoop, type ReflexionLoopProps } from "../../lib/constructs/reflexion-loop";
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
const MODEL_STEPS = [REFLEXION_STATES.evaluate, REFLEXION_STATES.reflect, REFLEXION_STATES.attempt] as const;
/** The loop under test, made without a LoopSteps: its shared steps are its own (construct `Steps`). */
const LOOP_ID = "ReflexionLoop";
const { functionOf } = loopFunctions(MODEL_STEPS);

const CUSTOM_PROPS: Omit<ReflexionLoopProps, "goalTable" | "steps"> = {
  stateMachineName: "custom-reflexion",
  ...CUSTOM_MODELS,
  continueAsNewAfter: 7,
};

/**
 * The one synth of this file: a ReflexionLoop with its own shared steps, and a ReactLoop and a
 * custom ReflexionLoop sharing one LoopSteps, as the stack composes them.
 */
const synthesize = synthesisOf((stack, goalTable) => {
  new ReflexionLoop(stack, LOOP_ID, { goalTable });
  const steps = stepsSharedWithReact(stack, goalTable);
  new ReflexionLoop(stack, "CustomLoop", { goalTable, steps, ...CUSTOM_PROPS });
});

describe("ReflexionLoop", () => {
  let template: Template;
  let stateMachine: TemplateResource;
  let definition: AslDefinition;

  beforeAll(() => {
    // Prepare + Act
    template = synthesize();
    [, stateMachine] = stateMachineNamed(template, "TestStack-reflexion");
    definition = definitionOf(stateMachine);
  });

  it("is a Standard JSONPath state machine named after the stack, with exactly the skeleton's states and its own three", () => {
    // Assess
    expectStandardStateMachine(stateMachine, definition);
    // RunsOnVersion adds the deployed version to the run's input; LoadGoal records it.
    expect(definition.StartAt).toBe("RunsOnVersion");
    expect(stateOf(definition, "RunsOnVersion").Next).toBe("LoadGoal");
    expect(Object.keys(definition.States).sort()).toEqual(Object.values(REFLEXION_STATES).sort());
    expect(Object.keys(definition.States)).toEqual(
      expect.arrayContaining(["Evaluate", "Reflect", "Attempt"]),
    );
  });

  it("is accepted by asl-validator, ARNs and paths checked", () => {
    // Assess
    expect(aslValidationErrors(definition)).toBe("");
  });

  it("routes verify → Evaluate, reflect → Reflect, attempt → Attempt, and Act back through NextAction", () => {
    // Act
    const choice = stateOf(definition, "NextAction");
    const routes = choiceRoutes(choice);

    // Assess
    expect(routes).toEqual({
      verify: "Evaluate",
      reflect: "Reflect",
      attempt: "Attempt",
      ...SKELETON_ROUTES,
    });
    expect(choice.Default).toBe("UnknownNext");
    for (const state of [...MODEL_STEPS, "LoadGoal", "ContinueAsNew", "AwaitApproval"]) {
      expect(stateOf(definition, state).Next, state).toBe("NextAction");
    }
    expect(stateOf(definition, "Act").Next).toBe("NextAction");
  });

  it("invokes each pattern step's own function, retried on transient errors only, everything else recorded", () => {
    // Assess
    for (const state of MODEL_STEPS) {
      expectModelStepTask(template, definition, state, functionOf(template, LOOP_ID, state)[0]);
    }
  });

  it("gives Evaluate, Reflect and Attempt the goal store and the model settings they read, and Attempt Act's tool settings", () => {
    // Prepare
    const goalStore = goalStoreVariables(template);

    // Assess
    for (const state of MODEL_STEPS) {
      const [, fn] = functionOf(template, LOOP_ID, state);
      expect(fn.Properties.Environment, state).toEqual({
        Variables: {
          ...goalStore,
          POWERTOOLS_SERVICE_NAME: "goal-loops",
          POWERTOOLS_LOG_LEVEL: "INFO",
          HEAVY_MODEL_ID: DEFAULT_MODEL_ID,
          FAST_MODEL_ID: HAIKU_MODEL_ID,
          CONTINUE_AS_NEW_AFTER: "50",
          // Attempt runs an ungated turn's tool calls itself: the tool runner's settings, as Act has them.
          ...(state === "Attempt" ? { HTTP_ALLOWED_HOSTS: "", TOOL_OUTPUT_INLINE_BYTES: "4096" } : {}),
        },
      });
      expect(fn.Properties, state).toMatchObject({
        MemorySize: 1024,
        Timeout: state === "Attempt" ? 480 : 360,
        Runtime: "nodejs22.x",
      });
    }
  });

  it("lets only Evaluate, Reflect and Attempt call Bedrock, and only the allow-listed models", () => {
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
    const reflexion = definitionOf(stateMachineNamed(template, "custom-reflexion")[1]);
    const continueAsNew = sharedFunction(template, "ContinueAsNew");
    const requestApproval = sharedFunction(template, "RequestApproval");
    const machines = [stateMachineArn("custom-reflexion"), stateMachineArn("shared-react")].sort();

    // Act
    const startable = resourcesAllowedTo(template, continueAsNew, "states:StartExecution");
    const answerable = resourcesAllowedTo(template, requestApproval, "states:SendTaskSuccess");

    // Assess
    expect(stateOf(reflexion, "Act").Resource).toBe(stateOf(react, "Act").Resource);
    expect(startable.sort()).toEqual(machines);
    expect(answerable.sort()).toEqual(machines);
  });

  it("passes custom model tiers and the continue-as-new threshold to its steps", () => {
    // Prepare
    const [, evaluate] = onlyResource(template, "AWS::Lambda::Function", "CustomLoopEvaluateFunction");

    // Act
    const allowed = resourcesAllowedTo(template, evaluate, "bedrock:InvokeModel");

    // Assess
    expect(evaluate.Properties.Environment).toMatchObject({
      Variables: {
        ...CUSTOM_MODEL_VARIABLES,
        CONTINUE_AS_NEW_AFTER: "7",
      },
    });
    expect(allowed.sort()).toEqual(CUSTOM_MODEL_RESOURCES);
  });

  it("rejects a fast model outside the allow-list before creating anything", () => {
    // Prepare
    const { stack, goalTable } = badStack();

    // Act + Assess
    expect(
      () => new ReflexionLoop(stack, "ReflexionLoop", { goalTable, allowedModelIds: [DEFAULT_MODEL_ID] }),
    ).toThrow(/allowedModelIds must include the fastModelId/);
    expect(stack.node.tryFindChild("ReflexionLoop")?.node.children ?? []).toHaveLength(0);
  });
});
