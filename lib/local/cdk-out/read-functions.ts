import { existsSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import type { FunctionSpec } from "../shared/cloud-assembly-model";
import { CloudAssemblyError } from "../shared/errors";
import type { StackTemplate } from "./stack-template";

const FunctionPropertiesSchema = z.looseObject({
  Handler: z.string().default("index.handler"),
  Runtime: z.string().default("nodejs22.x"),
  // Lambda's own defaults when the template leaves them out.
  Timeout: z.number().int().positive().default(3),
  MemorySize: z.number().int().positive().default(128),
  Environment: z.looseObject({ Variables: z.unknown().optional() }).optional(),
});

const EnvironmentSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

/**
 * Every Lambda function whose code is a cdk.out asset folder (`aws:asset:path` metadata), with its
 * environment resolved to local names. Functions with inline code or an image cannot run locally
 * and are left out.
 */
export function readFunctions(stack: StackTemplate, outDir: string): FunctionSpec[] {
  return stack.resourcesOfType("AWS::Lambda::Function").flatMap(([logicalId, resource]) => {
    const assetPath = assetPathOf(resource.Metadata, resource.Properties);
    if (assetPath === undefined) return [];
    const where = logicalId;
    const parsed = FunctionPropertiesSchema.safeParse(resource.Properties ?? {});
    if (!parsed.success) {
      throw new CloudAssemblyError(`${stack.stackName}/${where}: ${parsed.error.message}`);
    }
    const props = parsed.data;
    const environment = EnvironmentSchema.safeParse(
      stack.resolve(props.Environment?.Variables ?? {}, `${where} Environment.Variables`),
    );
    if (!environment.success) {
      throw new CloudAssemblyError(
        `${stack.stackName}/${where} Environment.Variables must resolve to strings: ${environment.error.message}`,
      );
    }
    const assetDir = path.resolve(outDir, assetPath);
    if (!existsSync(assetDir)) {
      throw new CloudAssemblyError(
        `${stack.stackName}/${where}: asset folder ${assetDir} is missing; synthesize again (npx cdk synth)`,
      );
    }
    const physical = stack.physicalIds.get(logicalId);
    const arn = physical?.attributes.Arn ?? "";
    return [
      {
        stackName: stack.stackName,
        logicalId,
        functionName: physical?.ref ?? logicalId,
        arn,
        assetDir,
        handler: props.Handler,
        runtime: props.Runtime,
        timeoutSeconds: props.Timeout,
        memoryMb: props.MemorySize,
        environment: Object.fromEntries(Object.entries(environment.data).map(([k, v]) => [k, String(v)])),
      },
    ];
  });
}

/**
 * The function's asset folder: `aws:asset:path` metadata (added by `cdk synth`), else the folder
 * named after the code's S3 key (`<hash>.zip` → `asset.<hash>`), which an app synthesized in code
 * without asset metadata still has.
 */
function assetPathOf(
  metadata: Record<string, unknown> | undefined,
  properties: Record<string, unknown> | undefined,
): string | undefined {
  const fromMetadata = metadata?.["aws:asset:path"];
  if (typeof fromMetadata === "string") return fromMetadata;
  const code = properties?.Code;
  const s3Key = typeof code === "object" && code !== null ? Reflect.get(code, "S3Key") : undefined;
  const hash = typeof s3Key === "string" ? /^([a-f0-9]{64})\.zip$/.exec(s3Key)?.[1] : undefined;
  return hash === undefined ? undefined : `asset.${hash}`;
}
