import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { GOAL_LOOPS_METADATA_TYPE } from "../../config/synth-target";
import type { CloudAssemblyModel, GoalLoopsSpec } from "../shared/cloud-assembly-model";
import { CloudAssemblyError } from "../shared/errors";
import { readApiRoutes } from "./read-api-routes";
import { readBuckets } from "./read-buckets";
import { readEventBuses, readEventRules } from "./read-event-rules";
import { readFunctions } from "./read-functions";
import { readStateMachines } from "./read-state-machines";
import { readTables } from "./read-tables";
import { readStackTemplate } from "./stack-template";

/** A stack's construct metadata: entries by construct path (`/Stack/Loops`). */
const MetadataSchema = z.record(
  z.string(),
  z.array(z.looseObject({ type: z.string(), data: z.unknown().optional() })),
);

const ManifestSchema = z.looseObject({
  artifacts: z.record(
    z.string(),
    z.looseObject({
      type: z.string(),
      properties: z
        .looseObject({ templateFile: z.string().optional(), stackName: z.string().optional() })
        .optional(),
      metadata: MetadataSchema.optional(),
      /** Newer CDK versions keep the metadata in a file of its own beside the template. */
      additionalMetadataFile: z.string().optional(),
    }),
  ),
});

const GoalLoopsMetadataSchema = z.looseObject({ version: z.string() });

export interface StackArtifact {
  readonly stackName: string;
  readonly templateFile: string;
  /** The GoalLoops constructs in this stack, found by their metadata. */
  readonly goalLoops: readonly GoalLoopsSpec[];
}

/** The stacks of a cloud assembly, checked: cdk.out/manifest.json exists and names at least one template. */
export function stackArtifacts(outDir: string): StackArtifact[] {
  const manifestFile = path.join(outDir, "manifest.json");
  if (!existsSync(manifestFile)) {
    throw new CloudAssemblyError(
      `${outDir} is not a cloud assembly (no manifest.json): run npx cdk synth first`,
    );
  }
  const parsed = ManifestSchema.safeParse(JSON.parse(readFileSync(manifestFile, "utf8")));
  if (!parsed.success) throw new CloudAssemblyError(`${manifestFile} is malformed: ${parsed.error.message}`);
  const stacks = Object.entries(parsed.data.artifacts).flatMap(([artifactId, artifact]): StackArtifact[] => {
    const templateFile = artifact.properties?.templateFile;
    if (artifact.type !== "aws:cloudformation:stack" || templateFile === undefined) return [];
    const stackName = artifact.properties?.stackName ?? artifactId;
    const metadata = {
      ...artifact.metadata,
      ...(artifact.additionalMetadataFile === undefined
        ? {}
        : readMetadataFile(path.join(outDir, artifact.additionalMetadataFile))),
    };
    return [
      {
        stackName,
        templateFile: path.join(outDir, templateFile),
        goalLoops: goalLoopsIn(stackName, metadata),
      },
    ];
  });
  if (stacks.length === 0) throw new CloudAssemblyError(`${manifestFile} names no CloudFormation stack`);
  for (const stack of stacks) {
    if (!existsSync(stack.templateFile)) {
      throw new CloudAssemblyError(`${stack.templateFile} is missing: synthesize again (npx cdk synth)`);
    }
  }
  return stacks;
}

function readMetadataFile(file: string): z.infer<typeof MetadataSchema> {
  if (!existsSync(file)) throw new CloudAssemblyError(`${file} is missing: synthesize again (npx cdk synth)`);
  const parsed = MetadataSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new CloudAssemblyError(`${file} is malformed: ${parsed.error.message}`);
  return parsed.data;
}

/** The GoalLoops constructs a stack's metadata names (GOAL_LOOPS_METADATA_TYPE), by construct path. */
function goalLoopsIn(stackName: string, metadata: z.infer<typeof MetadataSchema>): GoalLoopsSpec[] {
  return Object.entries(metadata).flatMap(([constructPath, entries]) =>
    entries.flatMap((entry) => {
      if (entry.type !== GOAL_LOOPS_METADATA_TYPE) return [];
      const data = GoalLoopsMetadataSchema.safeParse(entry.data);
      return [
        {
          stackName,
          path: constructPath.replace(/^\//, ""),
          version: data.success ? data.data.version : "unknown",
        },
      ];
    }),
  );
}

export interface LoadCloudAssemblyOptions {
  /**
   * The one stack to run (`--stack`), by its name.
   * @default - every stack holding a GoalLoops construct; an assembly with none (a test's own app) runs whole
   */
  readonly stack?: string;
  /**
   * The number the assembly's versions have (Lambda and state machine versions): the one the local
   * stack keeps it under (kept-versions.ts). @default 1
   */
  readonly version?: number;
}

/**
 * Which stacks of an assembly the local runtime runs: the one `--stack` names, else those that
 * hold a GoalLoops construct (found by its metadata, whatever the stack is called). One goals API
 * serves 127.0.0.1, so two GoalLoops constructs need `--stack` to pick one; an assembly without
 * any (the local runtime's own test apps) runs whole.
 */
export function selectStacks(stacks: readonly StackArtifact[], stack: string | undefined): StackArtifact[] {
  const names = stacks.map((artifact) => artifact.stackName).join(", ");
  if (stack !== undefined) {
    const chosen = stacks.filter((artifact) => artifact.stackName === stack);
    if (chosen.length === 0)
      throw new CloudAssemblyError(`No stack '${stack}' in the app (its stacks: ${names})`);
    return chosen;
  }
  const withGoalLoops = stacks.filter((artifact) => artifact.goalLoops.length > 0);
  if (withGoalLoops.length === 0) return [...stacks];
  const constructs = withGoalLoops.flatMap((artifact) => artifact.goalLoops);
  if (constructs.length > 1) {
    throw new CloudAssemblyError(
      `The app has ${constructs.length} GoalLoops constructs (${constructs.map((c) => c.path).join(", ")}); the local stack runs one: pass --stack <name> (${withGoalLoops.map((a) => a.stackName).join(", ")})`,
    );
  }
  return withGoalLoops;
}

/** Reads the stacks of `outDir` the local runtime runs (see selectStacks) into the local model. */
export function loadCloudAssembly(
  outDir: string,
  options: LoadCloudAssemblyOptions = {},
): CloudAssemblyModel {
  const absolute = path.resolve(outDir);
  const artifacts = selectStacks(stackArtifacts(absolute), options.stack);
  const inStack = artifacts.flatMap((artifact) => artifact.goalLoops);
  if (options.stack !== undefined && inStack.length > 1) {
    throw new CloudAssemblyError(
      `Stack '${options.stack}' holds ${inStack.length} GoalLoops constructs (${inStack.map((c) => c.path).join(", ")}); the local stack runs one`,
    );
  }
  const stacks = artifacts.map((a) => readStackTemplate(a.stackName, a.templateFile, options.version));
  return {
    outDir: absolute,
    stackNames: stacks.map((s) => s.stackName),
    goalLoops: inStack,
    functions: stacks.flatMap((s) => readFunctions(s, absolute)),
    stateMachines: stacks.flatMap(readStateMachines),
    tables: stacks.flatMap(readTables),
    buckets: stacks.flatMap(readBuckets),
    eventBuses: stacks.flatMap(readEventBuses),
    eventRules: stacks.flatMap(readEventRules),
    apiRoutes: stacks.flatMap(readApiRoutes),
  };
}
