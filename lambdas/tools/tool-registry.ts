import { parseOrThrow } from "../core/goal/validation";
import type { ToolSpec } from "../core/ports/model-client";
import type { ToolRisk } from "../core/ports/tool-runner";
import type * as z from "../core/zod";
import type { BuiltInTool, ToolEnvironment, ToolOutput } from "./built-in-tool";
import generatedInputSchemas from "./built-in-tool-input-schemas.json" with { type: "json" };
import { httpRequestTool } from "./http-request";
import { notifyTool } from "./notify";
import { spawnSubgoalTool } from "./spawn-subgoal";
import type { ToolCallError } from "./tool-call-error";
import { workspaceListTool } from "./workspace-list";
import { workspaceReadTool } from "./workspace-read";
import { workspaceWriteTool } from "./workspace-write";

/** One call whose input passed the tool's schema, with the risk that input carries. */
export interface PreparedToolCall {
  readonly risk: ToolRisk;
  /** A policy refusal (not allowed at all), checked before any approval is asked for. */
  refuse(env: ToolEnvironment): ToolCallError | undefined;
  execute(env: ToolEnvironment): Promise<ToolOutput>;
  /** See ToolRunner.stage; absent for a tool with nothing to do ahead. */
  stage?(env: ToolEnvironment): Promise<void>;
}

/** A tool with its input type erased behind `prepare`, so tools of different schemas share one list. */
export interface RegisteredTool {
  readonly name: string;
  readonly spec: ToolSpec;
  /** Parses the raw input; throws ValidationError naming every bad field. */
  prepare(input: unknown): PreparedToolCall;
}

/** The risk of one call: a constant for most tools, a function of the input for some (http_request). */
export function riskOf<S extends z.core.$ZodType>(tool: BuiltInTool<S>, input: z.output<S>): ToolRisk {
  return typeof tool.risk === "function" ? tool.risk(input) : tool.risk;
}

/**
 * A built-in tool, offered to the model with `inputSchema`: its zod input schema as JSON Schema
 * (`toolInputJsonSchema`), converted ahead of time (see `generatedInputSchema`).
 */
export function registerTool<S extends z.core.$ZodType>(
  tool: BuiltInTool<S>,
  inputSchema: ToolSpec["inputSchema"],
): RegisteredTool {
  return {
    name: tool.name,
    spec: { name: tool.name, description: tool.description, inputSchema },
    prepare(input) {
      const parsed = parseOrThrow(tool.inputSchema, input, `input for tool '${tool.name}'`);
      return {
        risk: riskOf(tool, parsed),
        refuse: (env) => tool.refuse?.(parsed, env),
        execute: (env) => tool.execute(parsed, env),
        stage: async (env) => {
          await tool.stage?.(parsed, env);
        },
      };
    },
  };
}

export interface ToolRegistry {
  /** Every registered tool, in registration order. */
  readonly tools: readonly RegisteredTool[];
  get(name: string): RegisteredTool | undefined;
  /**
   * Specs for the named tools, sorted by name so the same grant always gives the same request
   * bytes (prompt caching). Names with no registered tool are skipped: a call to one is answered
   * with `UnknownTool`.
   */
  toolSpecs(names: readonly string[]): ToolSpec[];
}

export function createToolRegistry(tools: readonly RegisteredTool[]): ToolRegistry {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    tools,
    get: (name) => byName.get(name),
    toolSpecs(names) {
      return [...new Set(names)].sort().flatMap((name) => {
        const tool = byName.get(name);
        return tool ? [tool.spec] : [];
      });
    },
  };
}

const GENERATED_INPUT_SCHEMAS: Readonly<Record<string, ToolSpec["inputSchema"] | undefined>> =
  generatedInputSchemas;

/** The tool's input JSON Schema as `npm run tool-schemas` wrote it from the tool's zod schema. */
function generatedInputSchema(tool: { readonly name: string }): ToolSpec["inputSchema"] {
  const schema = GENERATED_INPUT_SCHEMAS[tool.name];
  if (schema === undefined) {
    throw new Error(
      `lambdas/tools/built-in-tool-input-schemas.json has no input schema for the built-in tool '${tool.name}': run \`npm run tool-schemas\``,
    );
  }
  return schema;
}

export const BUILT_IN_TOOLS: readonly RegisteredTool[] = [
  registerTool(httpRequestTool, generatedInputSchema(httpRequestTool)),
  registerTool(notifyTool, generatedInputSchema(notifyTool)),
  registerTool(spawnSubgoalTool, generatedInputSchema(spawnSubgoalTool)),
  registerTool(workspaceListTool, generatedInputSchema(workspaceListTool)),
  registerTool(workspaceReadTool, generatedInputSchema(workspaceReadTool)),
  registerTool(workspaceWriteTool, generatedInputSchema(workspaceWriteTool)),
];

export const builtInToolRegistry = createToolRegistry(BUILT_IN_TOOLS);

/** ToolSpecs of the built-in tools among `names`, in a stable order. */
export function toolSpecs(names: readonly string[]): ToolSpec[] {
  return builtInToolRegistry.toolSpecs(names);
}
