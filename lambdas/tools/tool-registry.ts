import { parseOrThrow } from "../core/goal/validation";
import type { ToolSpec } from "../core/ports/model-client";
import type { ToolRisk } from "../core/ports/tool-runner";
import * as z from "../core/zod";
import type { BuiltInTool, ToolEnvironment, ToolOutput } from "./built-in-tool";
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
 * The tool's input as JSON Schema for Converse `toolSpec.inputSchema.json`. zod stamps a `$schema`
 * (draft 2020-12) on the root; tool schemas are plain objects the model fills in, so the dialect tag
 * is dropped rather than sent with every request.
 */
function bedrockInputSchema(schema: z.core.$ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(schema, { io: "input" });
  return inputSchema;
}

export function registerTool<S extends z.core.$ZodType>(tool: BuiltInTool<S>): RegisteredTool {
  // Built on first use and then kept: converting a schema to JSON Schema is not free, and a
  // function that only runs tools (Act) never sends specs, so its cold start skips it.
  let spec: ToolSpec | undefined;
  return {
    name: tool.name,
    // What Bedrock gets: the schema as the model must write it (input side: defaults optional).
    get spec() {
      spec ??= {
        name: tool.name,
        description: tool.description,
        inputSchema: bedrockInputSchema(tool.inputSchema),
      };
      return spec;
    },
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

export const BUILT_IN_TOOLS: readonly RegisteredTool[] = [
  registerTool(httpRequestTool),
  registerTool(notifyTool),
  registerTool(spawnSubgoalTool),
  registerTool(workspaceListTool),
  registerTool(workspaceReadTool),
  registerTool(workspaceWriteTool),
];

export const builtInToolRegistry = createToolRegistry(BUILT_IN_TOOLS);

/** ToolSpecs of the built-in tools among `names`, in a stable order. */
export function toolSpecs(names: readonly string[]): ToolSpec[] {
  return builtInToolRegistry.toolSpecs(names);
}
