import * as z from "zod";
import type { JsonObject, JsonValue, StateMachineSpec } from "../shared/cloud-assembly-model";
import { CloudAssemblyError } from "../shared/errors";
import { isJsonObject, parseJson } from "../shared/json";
import type { StackTemplate } from "./stack-template";

const StateMachinePropertiesSchema = z.looseObject({
  DefinitionString: z.unknown().optional(),
  Definition: z.unknown().optional(),
  DefinitionS3Location: z.unknown().optional(),
  DefinitionSubstitutions: z.unknown().optional(),
  StateMachineType: z.enum(["STANDARD", "EXPRESS"]).default("STANDARD"),
});

const DefinitionSchema = z.looseObject({
  StartAt: z.string(),
  States: z.record(z.string(), z.looseObject({ Type: z.string() })),
});

/** Every state of a definition, with nested Parallel branches and Map item processors. */
export function* walkStates(definition: JsonObject): Generator<[string, JsonObject]> {
  const states = definition.States;
  if (!isJsonObject(states)) return;
  for (const [name, state] of Object.entries(states)) {
    if (!isJsonObject(state)) continue;
    yield [name, state];
    const branches = state.Branches;
    for (const branch of Array.isArray(branches) ? branches : []) {
      if (isJsonObject(branch)) yield* walkStates(branch);
    }
    for (const key of ["Iterator", "ItemProcessor"]) {
      const nested = state[key];
      if (isJsonObject(nested)) yield* walkStates(nested);
    }
  }
}

/**
 * State machines with their definitions resolved: tokens in `DefinitionString` and the
 * `DefinitionSubstitutions` placeholders become local ARNs. JSONata definitions are refused: the
 * local engine would silently treat their expressions as plain strings.
 */
export function readStateMachines(stack: StackTemplate): StateMachineSpec[] {
  return stack.resourcesOfType("AWS::StepFunctions::StateMachine").map(([logicalId, resource]) => {
    const props = StateMachinePropertiesSchema.parse(resource.Properties ?? {});
    const definition = resolveDefinition(stack, logicalId, props);
    const physical = stack.physicalIds.get(logicalId);
    const published = publishedVersionOf(stack, logicalId);
    return {
      stackName: stack.stackName,
      logicalId,
      name: physical?.attributes.Name ?? logicalId,
      arn: physical?.attributes.Arn ?? "",
      type: props.StateMachineType,
      definition,
      ...(published === undefined ? {} : { published }),
    };
  });
}

const VersionPropertiesSchema = z.looseObject({
  StateMachineArn: z.object({ Ref: z.string() }),
  Description: z.string().optional(),
});
const AliasPropertiesSchema = z.looseObject({
  Name: z.string(),
  RoutingConfiguration: z.array(z.looseObject({ StateMachineVersionArn: z.unknown() })).optional(),
});

/**
 * The version of the state machine `logicalId` the template publishes (AWS::StepFunctions::
 * StateMachineVersion), with the aliases that route to it.
 */
function publishedVersionOf(stack: StackTemplate, logicalId: string): StateMachineSpec["published"] {
  for (const [versionId, resource] of stack.resourcesOfType("AWS::StepFunctions::StateMachineVersion")) {
    const props = VersionPropertiesSchema.safeParse(resource.Properties ?? {});
    if (!props.success || props.data.StateMachineArn.Ref !== logicalId) continue;
    const aliases = stack
      .resourcesOfType("AWS::StepFunctions::StateMachineAlias")
      .flatMap(([aliasId, alias]) => {
        const aliasProps = AliasPropertiesSchema.safeParse(alias.Properties ?? {});
        const routes = JSON.stringify(aliasProps.data?.RoutingConfiguration ?? []);
        if (!aliasProps.success || !routes.includes(`"${versionId}"`)) return [];
        return [stack.physicalIds.get(aliasId)?.ref ?? aliasId];
      });
    return {
      arn: stack.physicalIds.get(versionId)?.ref ?? versionId,
      description: props.data.Description ?? "",
      aliases,
    };
  }
  return undefined;
}

function resolveDefinition(
  stack: StackTemplate,
  logicalId: string,
  props: z.infer<typeof StateMachinePropertiesSchema>,
): JsonObject {
  const where = `${stack.stackName}/${logicalId}`;
  let text: string;
  if (props.DefinitionString !== undefined) {
    const resolved = stack.resolve(props.DefinitionString, `${logicalId} DefinitionString`);
    if (typeof resolved !== "string")
      throw new CloudAssemblyError(`${where}: DefinitionString is not a string`);
    text = resolved;
  } else if (props.Definition !== undefined) {
    text = JSON.stringify(stack.resolve(props.Definition, `${logicalId} Definition`));
  } else {
    throw new CloudAssemblyError(
      `${where}: only DefinitionString or Definition can run locally (DefinitionS3Location cannot)`,
    );
  }
  const substitutions = stack.resolve(
    props.DefinitionSubstitutions ?? {},
    `${logicalId} DefinitionSubstitutions`,
  );
  if (isJsonObject(substitutions)) {
    text = text.replace(/\$\{([^}]+)\}/g, (match, name: string) => {
      const value: JsonValue | undefined = substitutions[name];
      return value === undefined ? match : String(value);
    });
  }
  let definition: JsonValue;
  try {
    definition = parseJson(text);
  } catch (error) {
    throw new CloudAssemblyError(`${where}: the resolved definition is not JSON`, { cause: error });
  }
  const shape = DefinitionSchema.safeParse(definition);
  if (!shape.success || !isJsonObject(definition)) {
    throw new CloudAssemblyError(
      `${where}: the definition has no StartAt/States: ${shape.error?.message ?? ""}`,
    );
  }
  rejectJsonata(where, definition);
  return definition;
}

function rejectJsonata(where: string, definition: JsonObject): void {
  const hint =
    "the local engine (aws-local-stepfunctions) runs JSONPath only; build the state machine with JSONPath states";
  if (definition.QueryLanguage === "JSONata") {
    throw new CloudAssemblyError(`${where}: QueryLanguage JSONata is not supported locally: ${hint}`);
  }
  for (const [name, state] of walkStates(definition)) {
    if (state.QueryLanguage === "JSONata") {
      throw new CloudAssemblyError(
        `${where}: state '${name}' uses QueryLanguage JSONata, not supported locally: ${hint}`,
      );
    }
  }
}
