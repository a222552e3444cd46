import { App, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { type IRole, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { DefinitionBody, Pass, StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { expect } from "vitest";
import { FATAL_MODEL_ERRORS, RETRYABLE_MODEL_ERRORS } from "../../lambdas/adapters/bedrock/bedrock-errors";
import { GoalEventBus } from "../../lib/constructs/goal-event-bus";
import { GoalTable } from "../../lib/constructs/goal-table";
import { GoalsApi } from "../../lib/constructs/goals-api";
import { LoopSteps } from "../../lib/constructs/loop-steps";
import type { LoopModelProps } from "../../lib/constructs/pattern-loop";
import { ReactLoop } from "../../lib/constructs/react-loop";
import { unbundledTestApp } from "./construct-test-app";
import {
  type AllowStatement,
  type AslDefinition,
  type AslState,
  allowStatementsOf,
  allowsService,
  arnOf,
  functionVersionArn,
  onlyResource,
  resourcesAllowed,
  resourcesAllowedTo,
  roleOf,
  stateOf,
  type TemplateResource,
} from "./template-queries";

/**
 * The steps every loop shares (construct LoopSteps): a loop makes its own, under construct `Steps`,
 * unless it is handed one.
 */
export const SHARED_STEPS = [
  "LoadGoal",
  "Act",
  "RequestApproval",
  "ApprovalExpired",
  "ContinueAsNew",
  "RecordFailure",
  "AwaitSubgoals",
];

/**
 * A function returning the one synth of a test file: a stack `TestStack` with a goal table and the
 * loops `addLoops` adds. Bundling is skipped (`aws:cdk:bundling-stacks`): the stack test bundles
 * what `cdk synth` does.
 */
export function synthesisOf(addLoops: (stack: Stack, goalTable: GoalTable) => void): () => Template {
  let synthesized: Template | undefined;
  return () => {
    if (!synthesized) {
      const app = unbundledTestApp();
      const stack = new Stack(app, "TestStack");
      addLoops(stack, new GoalTable(stack, "GoalTable"));
      synthesized = Template.fromStack(stack);
    }
    return synthesized;
  };
}

/** A stack with a goal table, an event bus and the goals API (over a stand-in react machine), for a door. */
export function doorStack() {
  const app = unbundledTestApp();
  const stack = new Stack(app, "TestStack");
  const goalTable = new GoalTable(stack, "GoalTable");
  const goalEventBus = new GoalEventBus(stack, "GoalEventBus");
  const react = new StateMachine(stack, "React", {
    definitionBody: DefinitionBody.fromChainable(new Pass(stack, "P")),
  });
  const goalsApi = new GoalsApi(stack, "GoalsApi", { goalTable, stateMachines: { react } });
  return { stack, goalTable, goalEventBus, restApi: goalsApi.restApi };
}

/** Synthesizes `stack` once a Lambda role `roleId` is granted by `grant`, as the approval gate's would be. */
export function templateWithGrantedRole(
  stack: Stack,
  roleId: string,
  grant: (role: IRole) => void,
): Template {
  const role = new Role(stack, roleId, { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
  grant(role);
  return Template.fromStack(stack);
}

/** A stack of its own with a goal table, for a loop whose props are refused (nothing is synthesized). */
export function badStack(): { stack: Stack; goalTable: GoalTable } {
  const stack = new Stack(new App(), "BadStack");
  return { stack, goalTable: new GoalTable(stack, "GoalTable") };
}

/**
 * One LoopSteps (construct `Shared`) and a ReactLoop on it (`SharedReact`, state machine
 * `shared-react`), as the stack composes the loops: hand the steps to another loop.
 */
export function stepsSharedWithReact(stack: Stack, goalTable: GoalTable): LoopSteps {
  const steps = new LoopSteps(stack, "Shared", { goalTable });
  new ReactLoop(stack, "SharedReact", { goalTable, steps, stateMachineName: "shared-react" });
  return steps;
}

/** Where a loop's functions are, given the pattern's own steps (the ones that call a model). */
export function loopFunctions(patternSteps: readonly string[]) {
  /** The logical ID prefix: `${loopId}${functionId}`, or `${loopId}Steps${functionId}` for a shared step. */
  const prefix = (loopId: string, functionId: string): string =>
    patternSteps.includes(functionId) ? `${loopId}${functionId}` : `${loopId}Steps${functionId}`;
  const functionOf = (template: Template, loopId: string, functionId: string): [string, TemplateResource] =>
    onlyResource(template, "AWS::Lambda::Function", `${prefix(loopId, functionId)}Function`);
  const statementsOf = (template: Template, loopId: string, functionId: string): AllowStatement[] =>
    allowStatementsOf(template, roleOf(functionOf(template, loopId, functionId)[1]));
  return { prefix, functionOf, statementsOf };
}

/** The models a loop built with custom props uses, and the ARNs its model steps may invoke. */
export const CUSTOM_MODELS = {
  heavyModelId: "amazon.nova-lite-v1:0",
  fastModelId: "amazon.nova-micro-v1:0",
  allowedModelIds: ["amazon.nova-lite-v1:0", "amazon.nova-micro-v1:0"],
} satisfies LoopModelProps;
/** The environment a model step of such a loop reads its models from. */
export const CUSTOM_MODEL_VARIABLES = {
  HEAVY_MODEL_ID: CUSTOM_MODELS.heavyModelId,
  FAST_MODEL_ID: CUSTOM_MODELS.fastModelId,
};
export const CUSTOM_MODEL_RESOURCES = [
  "arn:<AWS::Partition>:bedrock:<AWS::Region>::foundation-model/amazon.nova-lite-v1:0",
  "arn:<AWS::Partition>:bedrock:<AWS::Region>::foundation-model/amazon.nova-micro-v1:0",
];

/**
 * What a model step may invoke for inference profiles: each profile in the stack's region, and its
 * foundation model in any region it routes to (a global profile's also by its region-less ARN),
 * the latter only through the profile (`expectFoundationModelsOnlyThroughProfiles`). Sorted.
 */
export function profileResources(modelIds: readonly string[]): string[] {
  return modelIds
    .flatMap((id) => {
      const foundationModel = id.replace(/^[a-z-]+\./, "");
      return [
        `arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/${id}`,
        `arn:<AWS::Partition>:bedrock:*::foundation-model/${foundationModel}`,
        ...(id.startsWith("global.")
          ? [`arn:<AWS::Partition>:bedrock:::foundation-model/${foundationModel}`]
          : []),
      ];
    })
    .sort();
}

/** A Standard state machine, traced, logging errors without execution data, in JSONPath. */
export function expectStandardStateMachine(stateMachine: TemplateResource, definition: AslDefinition): void {
  expect(stateMachine.Properties).toMatchObject({
    StateMachineType: "STANDARD",
    TracingConfiguration: { Enabled: true },
    LoggingConfiguration: { Level: "ERROR", IncludeExecutionData: false },
  });
  expect(definition.QueryLanguage ?? "JSONPath").toBe("JSONPath");
}

/** NextAction's routes every loop has (the skeleton's): Act, the gates, continue-as-new and the ends. */
export const SKELETON_ROUTES: Readonly<Record<string, string>> = {
  act: "Act",
  approval: "AwaitApproval",
  subgoal: "AwaitSubgoals",
  limit_decision: "AwaitApproval",
  decision: "AwaitApproval",
  continue_as_new: "ContinueAsNew",
  completed: "Completed",
  paused: "Paused",
  terminated: "Terminated",
  stop: "Stopped",
  continued: "Continued",
  wait_for_capacity: "WaitForCapacity",
};

/** The states every pattern's machine has besides its own steps. */
export const SKELETON_STATES: readonly string[] = [
  "RunsOnVersion",
  "LoadGoal",
  "NextAction",
  "Act",
  "AwaitApproval",
  "ApprovalExpired",
  "AwaitSubgoals",
  "ContinueAsNew",
  "RecordFailure",
  "UnknownNext",
  "Completed",
  "Paused",
  "Terminated",
  "Stopped",
  "Continued",
  "WaitForCapacity",
  "ResumeAfterCapacity",
  "LambdaThrottled",
  "LoadGoalThrottled",
];

/** A Choice state's routes: each value of `$.next` it matches, to the state it goes to. */
export function choiceRoutes(choice: AslState): Record<string, string> {
  return Object.fromEntries(
    (choice.Choices ?? [])
      .filter((rule) => "StringEquals" in rule)
      .map((rule) => [rule.StringEquals, rule.Next]),
  );
}

/** A model step's task: its own function, retried on transient errors only, everything else recorded. */
export function expectModelStepTask(
  template: Template,
  definition: AslDefinition,
  state: string,
  functionId: string,
): void {
  const task = stateOf(definition, state);
  // The version this deploy published: a run calls the code its state machine version names.
  expect(task.Resource, state).toBe(functionVersionArn(template, functionId));
  expect(task.Parameters, state).toBeUndefined();
  const retried = (task.Retry ?? []).flatMap((retry) => retry.ErrorEquals);
  // Bedrock's throttling is a capacity wait the step answers, never a Retry.
  const transient = RETRYABLE_MODEL_ERRORS.filter((name) => name !== "ThrottlingException");
  expect(retried, state).toEqual(expect.arrayContaining([...transient, "Runtime.ExitError"]));
  expect(retried, state).not.toContain("ThrottlingException");
  for (const fatal of FATAL_MODEL_ERRORS) expect(retried, state).not.toContain(fatal);
  expect(task.Catch, state).toEqual([
    { ErrorEquals: ["Lambda.TooManyRequestsException"], ResultPath: "$.error", Next: "LambdaThrottled" },
    { ErrorEquals: ["States.ALL"], ResultPath: "$.error", Next: "RecordFailure" },
  ]);
}

/**
 * The statements let a function invoke exactly `models` (sorted), and no Bedrock wildcard; a
 * foundation model in other regions (an inference profile's) only through its own profile.
 */
export function expectInvokesOnlyModels(
  statements: readonly AllowStatement[],
  models: readonly string[],
  label?: string,
): void {
  expect(resourcesAllowed(statements, "bedrock:InvokeModel").sort(), label).toEqual(models);
  expect(
    statements.flatMap((s) => s.actions),
    label,
  ).not.toContain("bedrock:*");
  expectFoundationModelsOnlyThroughProfiles(statements, label);
}

/**
 * Every statement that allows a foundation model outside the stack's region (`bedrock:*::` or the
 * region-less `bedrock:::` of global profiles) holds it to requests through that model's inference
 * profiles in the stack's region (`bedrock:InferenceProfileArn`), and allows nothing else.
 */
export function expectFoundationModelsOnlyThroughProfiles(
  statements: readonly AllowStatement[],
  label?: string,
): void {
  const outOfRegion = /^arn:<AWS::Partition>:bedrock:(\*)?::foundation-model\/(.+)$/;
  for (const statement of statements.filter((s) => s.actions.includes("bedrock:InvokeModel"))) {
    const models = statement.resources.map((arn) => outOfRegion.exec(arn)?.[2]);
    if (models.every((model) => model === undefined)) {
      expect(statement.conditions, label).toBeUndefined();
      continue;
    }
    expect(models, label).not.toContain(undefined);
    const profiles = statement.conditions?.StringEquals?.["bedrock:InferenceProfileArn"] ?? [];
    expect(Object.keys(statement.conditions ?? {}), label).toEqual(["StringEquals"]);
    expect(profiles.length, label).toBeGreaterThan(0);
    for (const profile of profiles) {
      expect(profile, label).toMatch(
        /^arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile\/[a-z-]+\./,
      );
      expect(new Set(models), label).toEqual(
        new Set([profile.replace(/^.*inference-profile\/[a-z-]+\./, "")]),
      );
    }
  }
}

/** The state machine may invoke exactly these functions (and their versions). */
export function expectInvokesExactly(
  template: Template,
  stateMachine: TemplateResource,
  functionIds: readonly string[],
): void {
  const invokable = resourcesAllowedTo(template, stateMachine, "lambda:InvokeFunction");
  // This deploy's version of each step, and its other versions (`:*`: a run pinned to an older
  // state machine version calls older ones); never the function itself ($LATEST).
  const versions = functionIds.map((id) => functionVersionArn(template, id));
  expect(invokable.sort()).toEqual([...versions, ...functionIds.map((id) => `${arnOf(id)}:*`)].sort());
}

/**
 * Of a loop made without a LoopSteps, only the model steps may call Bedrock, each exactly `models`
 * and no Step Functions; its shared steps may not call Bedrock.
 */
export function expectOnlyModelStepsCallBedrock(
  template: Template,
  loopId: string,
  modelSteps: readonly string[],
  models: readonly string[],
): void {
  const { statementsOf } = loopFunctions(modelSteps);
  for (const state of modelSteps) {
    const statements = statementsOf(template, loopId, state);
    expectInvokesOnlyModels(statements, models, state);
    expect(allowsService(statements, "states"), state).toBe(false);
  }
  for (const functionId of SHARED_STEPS) {
    expect(allowsService(statementsOf(template, loopId, functionId), "bedrock"), functionId).toBe(false);
  }
}

/** The state machine of a loop made without a LoopSteps may invoke exactly its model and shared steps. */
export function expectInvokesItsSteps(
  template: Template,
  stateMachine: TemplateResource,
  loopId: string,
  modelSteps: readonly string[],
): void {
  const { functionOf } = loopFunctions(modelSteps);
  const functionIds = [...modelSteps, ...SHARED_STEPS].map((id) => functionOf(template, loopId, id)[0]);
  expectInvokesExactly(template, stateMachine, functionIds);
}

/** A function of the LoopSteps `Shared` (see stepsSharedWithReact). */
export function sharedFunction(template: Template, functionId: string): TemplateResource {
  return onlyResource(template, "AWS::Lambda::Function", `Shared${functionId}Function`)[1];
}
