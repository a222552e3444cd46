import { createRequire } from "node:module";
import type { Template } from "aws-cdk-lib/assertions";
import { expect } from "vitest";
import { z } from "zod";

interface AslValidationResult {
  readonly isValid: boolean;
  errorsText(separator?: string): string;
}
type AslValidator = (
  definition: unknown,
  options?: { checkPaths: boolean; checkArn: boolean },
) => AslValidationResult;
// asl-validator is CommonJS without type declarations: typed here, for the one call the tests make.
const aslValidator: AslValidator = createRequire(import.meta.url)("asl-validator");

/**
 * What asl-validator finds wrong with a definition, ARNs and paths checked ("" when it is valid).
 * The callback task's resource is partition-relative (`arn:${AWS::Partition}:states:::…`).
 */
export function aslValidationErrors(definition: unknown): string {
  const resolved = JSON.parse(JSON.stringify(definition).replaceAll("<AWS::Partition>", "aws"));
  const result = aslValidator(resolved, { checkArn: true, checkPaths: true });
  return result.isValid ? "" : result.errorsText(" | ") || "invalid";
}

/** A fake account and region for the ARNs that stand in for `Fn::GetAtt` references. */
const FAKE_ARN_PREFIX = "arn:aws:lambda:us-east-1:123456789012:function:";

/**
 * The stand-in for `Fn::GetAtt [logicalId, Arn]`: Lambda-shaped, so asl-validator's ARN check
 * accepts a task's Resource, and naming the resource, so a test can tell which one it is.
 */
export function arnOf(logicalId: string): string {
  return `${FAKE_ARN_PREFIX}${logicalId}`;
}

const ResourceSchema = z.looseObject({
  Type: z.string(),
  Properties: z.record(z.string(), z.unknown()).default({}),
  DependsOn: z.union([z.string(), z.array(z.string())]).optional(),
});
export type TemplateResource = z.infer<typeof ResourceSchema>;

/** Every resource of a type, by logical ID, parsed (the assertions API hands out `any`). */
export function resourcesOf(template: Template, type: string): Map<string, TemplateResource> {
  const found: Record<string, unknown> = template.findResources(type);
  return new Map(Object.entries(found).map(([id, resource]) => [id, ResourceSchema.parse(resource)]));
}

/** The one resource of a type whose logical ID starts with the prefix (construct path, no slashes). */
export function onlyResource(template: Template, type: string, idPrefix = ""): [string, TemplateResource] {
  const matches = [...resourcesOf(template, type)].filter(([id]) => id.startsWith(idPrefix));
  expect(matches.map(([id]) => id)).toHaveLength(1);
  const [match] = matches;
  if (!match) throw new Error(`no ${type} with logical ID prefix '${idPrefix}'`);
  return match;
}

/** CDK's logical id of a function's `currentVersion` (`…CurrentVersion` + 8 + 32 hex digits). */
const VERSION_LOGICAL_ID = /CurrentVersion[0-9A-F]{8}[0-9a-f]{32}$/;

/**
 * The stand-in for `Ref` of a Lambda version: a qualified Lambda ARN (version 1 of a function named
 * after the version's logical id), so asl-validator's ARN check accepts a task that invokes it.
 */
export function versionArnOf(versionLogicalId: string): string {
  return `${arnOf(versionLogicalId)}:1`;
}

/** The logical id of the `currentVersion` (AWS::Lambda::Version) of the function `functionLogicalId`. */
export function functionVersionId(template: Template, functionLogicalId: string): string {
  const versions = [...resourcesOf(template, "AWS::Lambda::Version")].filter(
    ([, version]) =>
      JSON.stringify(version.Properties.FunctionName) === JSON.stringify({ Ref: functionLogicalId }),
  );
  const [only] = versions;
  if (only === undefined || versions.length !== 1) {
    throw new Error(`${functionLogicalId} has ${versions.length} versions in the template, not one`);
  }
  return only[0];
}

/** The `currentVersion` of the function `functionLogicalId`, as `versionArnOf` shows it. */
export function functionVersionArn(template: Template, functionLogicalId: string): string {
  return versionArnOf(functionVersionId(template, functionLogicalId));
}

/**
 * A string as it reads once CloudFormation resolved it, with stand-ins for what only a deployment
 * knows: `Fn::GetAtt [X, Arn]` → `arnOf(X)`, `Ref X` → `<X>` (of a Lambda version: `versionArnOf(X)`),
 * `Fn::Join` joined.
 */
export function flattenReferences(node: unknown): string {
  if (typeof node === "string") return node;
  const parsed = ReferenceSchema.safeParse(node);
  if (!parsed.success) throw new Error(`cannot flatten ${JSON.stringify(node)}`);
  const reference = parsed.data;
  if ("Fn::Join" in reference) {
    const [separator, parts] = reference["Fn::Join"];
    return parts.map(flattenReferences).join(separator);
  }
  if ("Fn::GetAtt" in reference) {
    const [logicalId, attribute] = reference["Fn::GetAtt"];
    return attribute === "Arn" ? arnOf(logicalId) : `<${logicalId}.${attribute}>`;
  }
  if ("Fn::Select" in reference) {
    // A part of a split ARN (a state machine's name in its executions' ARN): `<part 6 of <X>>`.
    const [index, split] = reference["Fn::Select"];
    return `<part ${index} of ${flattenReferences(split["Fn::Split"][1])}>`;
  }
  return VERSION_LOGICAL_ID.test(reference.Ref) ? versionArnOf(reference.Ref) : `<${reference.Ref}>`;
}

const ReferenceSchema = z.union([
  z.object({ "Fn::Join": z.tuple([z.string(), z.array(z.unknown())]) }),
  z.object({ "Fn::GetAtt": z.tuple([z.string(), z.string()]) }),
  z.object({
    "Fn::Select": z.tuple([z.number(), z.object({ "Fn::Split": z.tuple([z.string(), z.unknown()]) })]),
  }),
  z.object({ Ref: z.string() }),
]);

const RetrierSchema = z.looseObject({
  ErrorEquals: z.array(z.string()),
  IntervalSeconds: z.number().optional(),
  MaxAttempts: z.number().optional(),
  BackoffRate: z.number().optional(),
  JitterStrategy: z.string().optional(),
});
const CatcherSchema = z.looseObject({
  ErrorEquals: z.array(z.string()),
  Next: z.string(),
  ResultPath: z.string().nullable().optional(),
});
const ChoiceRuleSchema = z.looseObject({ Variable: z.string(), Next: z.string() });
const StateSchema = z.looseObject({
  Type: z.string(),
  Next: z.string().optional(),
  End: z.boolean().optional(),
  Resource: z.string().optional(),
  Parameters: z.record(z.string(), z.unknown()).optional(),
  ResultPath: z.string().nullable().optional(),
  OutputPath: z.string().nullable().optional(),
  TimeoutSeconds: z.number().optional(),
  Retry: z.array(RetrierSchema).optional(),
  Catch: z.array(CatcherSchema).optional(),
  Choices: z.array(ChoiceRuleSchema).optional(),
  Default: z.string().optional(),
  ErrorPath: z.string().optional(),
  CausePath: z.string().optional(),
  Result: z.unknown().optional(),
});
export type AslState = z.infer<typeof StateSchema>;
const DefinitionSchema = z.looseObject({
  StartAt: z.string(),
  States: z.record(z.string(), StateSchema),
  QueryLanguage: z.string().optional(),
});
export type AslDefinition = z.infer<typeof DefinitionSchema>;

/** A state machine's definition from its `DefinitionString`, references flattened (see flattenReferences). */
export function definitionOf(stateMachine: TemplateResource): AslDefinition {
  return DefinitionSchema.parse(JSON.parse(flattenReferences(stateMachine.Properties.DefinitionString)));
}

/** A state of the definition, or a failed expectation naming it. */
export function stateOf(definition: AslDefinition, name: string): AslState {
  const state = definition.States[name];
  expect(state, `state ${name}`).toBeDefined();
  if (!state) throw new Error(`no state ${name}`);
  return state;
}

const StatementSchema = z.looseObject({
  Effect: z.string(),
  Action: z.union([z.string(), z.array(z.string())]),
  Resource: z.unknown(),
  Condition: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});
const PolicyPropertiesSchema = z.looseObject({
  PolicyDocument: z.object({ Statement: z.array(StatementSchema) }),
  Roles: z.array(z.object({ Ref: z.string() })).default([]),
});

export interface AllowStatement {
  readonly actions: readonly string[];
  /** Resources flattened to strings (see flattenReferences). */
  readonly resources: readonly string[];
  /** Condition operator → key → values, flattened to strings; absent without a condition. */
  readonly conditions?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

const ConditionSchema = z.record(z.string(), z.record(z.string(), z.unknown())).optional();

function flattenConditions(condition: unknown): Pick<AllowStatement, "conditions"> {
  const parsed = ConditionSchema.parse(condition);
  if (parsed === undefined) return {};
  const conditions = Object.fromEntries(
    Object.entries(parsed).map(([operator, keys]) => [
      operator,
      Object.fromEntries(
        Object.entries(keys).map(([key, values]) => [key, [values].flat().map(flattenReferences)]),
      ),
    ]),
  );
  return { conditions };
}

/** Every Allow statement of every policy attached to the role, actions and resources as arrays. */
export function allowStatementsOf(template: Template, roleLogicalId: string): AllowStatement[] {
  return [...resourcesOf(template, "AWS::IAM::Policy").values()]
    .map((policy) => PolicyPropertiesSchema.parse(policy.Properties))
    .filter((policy) => policy.Roles.some((role) => role.Ref === roleLogicalId))
    .flatMap((policy) => policy.PolicyDocument.Statement)
    .filter((statement) => statement.Effect === "Allow")
    .map((statement) => ({
      actions: [statement.Action].flat(),
      resources: [statement.Resource].flat().map(flattenReferences),
      ...flattenConditions(statement.Condition),
    }));
}

const GetAttArnSchema = z.object({ "Fn::GetAtt": z.tuple([z.string(), z.literal("Arn")]) });

/**
 * The actions of every Allow statement attached to the role, each with its resources flattened
 * when it is one of `actions` (other statements may hold references flattenReferences cannot read,
 * such as the resume handler's `Fn::Select` of an execution ARN).
 */
export function allowedActionsOf(
  template: Template,
  roleLogicalId: string,
): { readonly actions: readonly string[]; resourcesOf(action: string): string[] } {
  const statements = [...resourcesOf(template, "AWS::IAM::Policy").values()]
    .map((policy) => PolicyPropertiesSchema.parse(policy.Properties))
    .filter((policy) => policy.Roles.some((role) => role.Ref === roleLogicalId))
    .flatMap((policy) => policy.PolicyDocument.Statement)
    .filter((statement) => statement.Effect === "Allow")
    .map((statement) => ({ actions: [statement.Action].flat(), resources: [statement.Resource].flat() }));
  return {
    actions: statements.flatMap((statement) => statement.actions),
    resourcesOf: (action) =>
      statements
        .filter((statement) => statement.actions.includes(action))
        .flatMap((statement) => statement.resources.map(flattenReferences)),
  };
}

/** The logical ID of the role a resource runs as (`Role` of a function, `RoleArn` of a state machine). */
export function roleOf(resource: TemplateResource): string {
  const role = GetAttArnSchema.parse(resource.Properties.Role ?? resource.Properties.RoleArn);
  return role["Fn::GetAtt"][0];
}

/** The resources the role may use an action on (an action in several statements: all of them). */
export function resourcesAllowed(statements: readonly AllowStatement[], action: string): string[] {
  return statements.filter((statement) => statement.actions.includes(action)).flatMap((s) => s.resources);
}

/** Whether any statement allows an action of the service (`bedrock`, `states`). */
export function allowsService(statements: readonly AllowStatement[], service: string): boolean {
  return statements.some((statement) => statement.actions.some((action) => action.startsWith(`${service}:`)));
}

/** The resources the role a resource runs as (a function's, a state machine's) may use an action on. */
export function resourcesAllowedTo(template: Template, resource: TemplateResource, action: string): string[] {
  return resourcesAllowed(allowStatementsOf(template, roleOf(resource)), action);
}

/** The one state machine named `name`: its logical ID and the resource. */
export function stateMachineNamed(template: Template, name: string): [string, TemplateResource] {
  const matches = [...resourcesOf(template, "AWS::StepFunctions::StateMachine")].filter(
    ([, resource]) => resource.Properties.StateMachineName === name,
  );
  expect(matches).toHaveLength(1);
  const [match] = matches;
  if (!match) throw new Error(`no state machine named ${name}`);
  return match;
}

/** A state machine's ARN as a policy names it: by its fixed name, so no reference cycle. */
export function stateMachineArn(name: string): string {
  return `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:${name}`;
}

/**
 * The variables `GoalTable.environment` gives every function of the goal store, as the template
 * of a stack with one goal table holds them (default payload settings).
 */
export function goalStoreVariables(template: Template): Record<string, unknown> {
  const [tableId] = onlyResource(template, "AWS::DynamoDB::Table");
  const [bucketId] = onlyResource(template, "AWS::S3::Bucket");
  return {
    GOAL_TABLE_NAME: { Ref: tableId },
    PAYLOAD_BUCKET_NAME: { Ref: bucketId },
    PAYLOAD_INLINE_MAX_BYTES: "65536",
    PAYLOAD_MAX_BYTES: "52428800",
  };
}

/** The statements of every policy on the role, unflattened (some resources are `Fn::Select`s). */
export function rawStatementsOf(template: Template, role: string): Record<string, unknown>[] {
  return [...resourcesOf(template, "AWS::IAM::Policy").values()]
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${role}"`))
    .flatMap(
      (policy) => (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
    );
}
