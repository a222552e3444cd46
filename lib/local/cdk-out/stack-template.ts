import { readFileSync } from "node:fs";
import * as z from "zod";
import type { JsonValue } from "../shared/cloud-assembly-model";
import { CloudAssemblyError } from "../shared/errors";
import {
  type IntrinsicContext,
  type PhysicalId,
  physicalIdOf,
  QUALIFIED_TYPES,
  qualifiedPhysicalIdOf,
  resolveIntrinsics,
  type TemplateResource,
} from "./cfn-intrinsics";

const TemplateSchema = z.looseObject({
  Parameters: z.record(z.string(), z.looseObject({ Default: z.unknown().optional() })).optional(),
  Resources: z.record(
    z.string(),
    z.looseObject({
      Type: z.string(),
      Properties: z.record(z.string(), z.unknown()).optional(),
      Metadata: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});

/** One stack's template with the means to resolve its tokens to local names. */
export interface StackTemplate {
  readonly stackName: string;
  readonly resources: Readonly<Record<string, TemplateResource>>;
  readonly physicalIds: ReadonlyMap<string, PhysicalId>;
  /** Resolves intrinsics in `value`; `where` names the resource and property in errors. */
  resolve(value: unknown, where: string): JsonValue;
  /** Logical ids of the resources of one type, in template order. */
  resourcesOfType(...types: string[]): [string, TemplateResource][];
}

/**
 * @param version the number its versions (Lambda and state machine) have locally: the one the
 * local stack keeps this assembly under (kept-versions.ts), 1 when it keeps none.
 */
export function readStackTemplate(stackName: string, templateFile: string, version = 1): StackTemplate {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(templateFile, "utf8"));
  } catch (error) {
    throw new CloudAssemblyError(`Cannot read the template of stack ${stackName} (${templateFile})`, {
      cause: error,
    });
  }
  const parsed = TemplateSchema.safeParse(raw);
  if (!parsed.success) {
    throw new CloudAssemblyError(`${templateFile} is not a CloudFormation template: ${parsed.error.message}`);
  }
  const { Resources: resources, Parameters: parameters = {} } = parsed.data;
  const physicalIds = new Map<string, PhysicalId>();
  for (const [id, resource] of Object.entries(resources)) {
    if (!QUALIFIED_TYPES.includes(resource.Type)) physicalIds.set(id, physicalIdOf(id, resource));
  }
  const context: IntrinsicContext = {
    stackName,
    physicalIds,
    // Only parameters with a default can be resolved without a deployment (CDK's are all of that kind).
    parameters: Object.fromEntries(
      Object.entries(parameters).flatMap(([name, p]) =>
        p.Default === undefined ? [] : [[name, String(p.Default)]],
      ),
    ),
  };
  // Versions before aliases: an alias names its state machine through the versions it routes to.
  for (const type of QUALIFIED_TYPES) {
    for (const [id, resource] of Object.entries(resources)) {
      if (resource.Type !== type) continue;
      const resolve = (value: unknown, property: string) =>
        resolveIntrinsics(value, context, `${stackName}/${id} ${property}`);
      physicalIds.set(id, qualifiedPhysicalIdOf(resource, version, resolve));
    }
  }
  return {
    stackName,
    resources,
    physicalIds,
    resolve: (value, where) => resolveIntrinsics(value, context, `${stackName}/${where}`),
    resourcesOfType: (...types) => Object.entries(resources).filter(([, r]) => types.includes(r.Type)),
  };
}
