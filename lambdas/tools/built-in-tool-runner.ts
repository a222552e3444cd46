import { ValidationError } from "../core/goal/errors";
import type { FrozenTool } from "../core/goal/frozen-tools";
import { parseOrThrow } from "../core/goal/validation";
import type { ToolUseBlock } from "../core/ports/model-client";
import type { Outbox } from "../core/ports/outbox";
import {
  type StagingContext,
  type ToolCallContext,
  type ToolOutcome,
  type ToolRisk,
  type ToolRunner,
  toolCallIdempotencyKey,
} from "../core/ports/tool-runner";
import type { Workspace } from "../core/ports/workspace";
import * as z from "../core/zod";
import type { NotifyPolicy, ToolEnvironment } from "./built-in-tool";
import type { McpGatewayClient } from "./mcp-gateway-contract";
import { mcpTool } from "./mcp-tool";
import { ToolCallError } from "./tool-call-error";
import { errorOutcome, successOutcome } from "./tool-outcome";
import { builtInToolRegistry, createToolRegistry, type ToolRegistry } from "./tool-registry";

/** Tool output above this many bytes becomes an artifact unless the deployment says otherwise. */
export const DEFAULT_TOOL_OUTPUT_INLINE_BYTES = 4096;
/** Below this an artifact reference would not fit where the output would have gone. */
export const MIN_TOOL_OUTPUT_INLINE_BYTES = 256;

const RunnerLimitsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** Tool output (as JSON) above this many bytes becomes a workspace artifact the model gets a reference to. */
    inlineLimitBytes: z._default(
      z.number().check(z.int(), z.gte(MIN_TOOL_OUTPUT_INLINE_BYTES)),
      DEFAULT_TOOL_OUTPUT_INLINE_BYTES,
    ),
    httpTimeoutMs: z._default(z.number().check(z.int(), z.positive()), 10_000),
    /** Response body bytes `http_request` keeps; well under a store item so an overflow can be stored. */
    maxResponseBytes: z._default(z.number().check(z.int(), z.positive()), 131_072),
  }),
);

export interface BuiltInToolRunnerOptions {
  readonly workspace: Workspace;
  readonly outbox: Outbox;
  /** Hosts `http_request` may GET (HTTP_ALLOWED_HOSTS). */
  readonly allowedHosts: readonly string[];
  /** @default 4096 */
  readonly inlineLimitBytes?: number;
  /** @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /** @default 10000 */
  readonly httpTimeoutMs?: number;
  /** @default 131072 */
  readonly maxResponseBytes?: number;
  /** @default the built-in tools */
  readonly registry?: ToolRegistry;
  /**
   * Runs the MCP tools frozen into a goal (the McpGateway function).
   * @default - none configured: a frozen MCP tool's call fails with McpServerNotConfigured
   */
  readonly mcpGateway?: McpGatewayClient;
  /** @default outbox only, no channels configured */
  readonly notify?: NotifyPolicy;
}

/** Answers every call with the reason: the deployment names no MCP server any more. */
export const NO_MCP_GATEWAY: McpGatewayClient = {
  list: async (servers) => ({
    servers: Object.fromEntries(servers.map((server) => [server, { error: notConfigured(server) }])),
  }),
  call: async ({ server }) => ({ error: notConfigured(server) }),
};

function notConfigured(server: string) {
  return {
    name: "McpServerNotConfigured",
    message: `MCP server '${server}' is not in this deployment's configuration (tools.mcp) any more`,
  };
}

/** Local runs and tests: every `notify` message is recorded in the outbox, none is sent. */
export const OUTBOX_ONLY_NOTIFY: NotifyPolicy = {
  mode: "outbox",
  channels: {},
  send: async () => {
    throw new Error("notify is in outbox mode: nothing is sent");
  },
};

/**
 * The risk of one call: the tool's, for input-dependent tools the one of this input; undefined for
 * an unknown tool or invalid input (such a call fails without running, so it needs no gate).
 */
export function toolCallRisk(
  call: ToolUseBlock,
  registry: ToolRegistry = builtInToolRegistry,
): ToolRisk | undefined {
  const tool = registry.get(call.name);
  if (!tool) return undefined;
  try {
    return tool.prepare(call.input).risk;
  } catch (error) {
    if (error instanceof ValidationError) return undefined;
    throw error;
  }
}

function refusal(name: string, message: string): ToolCallError {
  return new ToolCallError(name, message);
}

function list(names: readonly string[]): string {
  return names.length === 0 ? "none" : names.join(", ");
}

/**
 * The ToolRunner over the built-in tools. A call is checked in this order, and the first failure is
 * its error: UnknownTool, ToolNotGranted, ToolCallTruncated, InvalidToolInput, the tool's own
 * refusal (HttpRequestRefused), ApprovalRequired; then the tool runs and may fail with its own
 * error (FileNotFound, HttpRequestFailed, WorkspaceFileTooLarge). None of these throw: only a store
 * that cannot be reached does, so the step retries.
 */
export function createBuiltInToolRunner(options: BuiltInToolRunnerOptions): ToolRunner {
  const limits = parseOrThrow(RunnerLimitsSchema, options, "tool runner options");
  const base = options.registry ?? builtInToolRegistry;
  const gateway = options.mcpGateway ?? NO_MCP_GATEWAY;
  // One registry per goal's frozen list (the same array while a step runs), built on first use.
  const registries = new WeakMap<readonly FrozenTool[], ToolRegistry>();
  const registryFor = (frozen: readonly FrozenTool[] | undefined): ToolRegistry => {
    if (frozen === undefined || frozen.length === 0) return base;
    let registry = registries.get(frozen);
    if (!registry) {
      registry = createToolRegistry([...base.tools, ...frozen.map((tool) => mcpTool(tool, gateway))]);
      registries.set(frozen, registry);
    }
    return registry;
  };
  const fetch = options.fetch ?? globalThis.fetch;
  const now = options.now ?? (() => new Date());
  const { inlineLimitBytes } = limits;

  const environmentOf = (call: ToolUseBlock, context: ToolCallContext): ToolEnvironment => ({
    call,
    context,
    workspace: options.workspace,
    outbox: options.outbox,
    http: {
      allowedHosts: options.allowedHosts,
      fetch,
      timeoutMs: limits.httpTimeoutMs,
      maxResponseBytes: limits.maxResponseBytes,
    },
    notify: options.notify ?? OUTBOX_ONLY_NOTIFY,
    now,
  });

  /** Stages the calls `run` would run as they are (granted, whole, valid, not refused); never rejects. */
  async function stage(calls: readonly ToolUseBlock[], staging: StagingContext): Promise<void> {
    if (staging.truncated) return;
    const { goalId, runId, iteration } = staging;
    const contextOf = (call: ToolUseBlock): ToolCallContext => ({
      ...staging,
      idempotencyKey: toolCallIdempotencyKey({ goalId, runId, iteration, toolUseId: call.toolUseId }),
    });
    const registry = registryFor(staging.frozenTools);
    await Promise.all(
      calls.map(async (call) => {
        const tool = registry.get(call.name);
        if (!tool || !staging.grantedTools.includes(call.name)) return;
        try {
          const prepared = tool.prepare(call.input);
          const env = environmentOf(call, contextOf(call));
          if (!prepared.refuse(env)) await prepared.stage?.(env);
        } catch {
          // A bad call is answered by `run`; a failed stage leaves its work to `run`.
        }
      }),
    );
  }

  async function run(call: ToolUseBlock, context: ToolCallContext): Promise<ToolOutcome> {
    const fail = (error: ToolCallError) => errorOutcome(call, error, inlineLimitBytes);
    const registry = registryFor(context.frozenTools);
    const available = registry.toolSpecs(context.grantedTools).map((spec) => spec.name);

    const tool = registry.get(call.name);
    if (!tool) {
      return fail(
        refusal("UnknownTool", `There is no tool '${call.name}'. Tools you can use: ${list(available)}`),
      );
    }
    if (!context.grantedTools.includes(call.name)) {
      return fail(
        refusal(
          "ToolNotGranted",
          `Tool '${call.name}' is not granted to this goal (the GoalSpec's tools). Tools you can use: ${list(available)}`,
        ),
      );
    }
    if (context.truncated) {
      // The turn ended on max_tokens: the input may be cut off mid-way, so running it could act on half a value.
      return fail(
        refusal(
          "ToolCallTruncated",
          `Tool '${call.name}' was not run: the response hit the output token limit, so this call's input may be cut off. Call it again with a shorter input.`,
        ),
      );
    }

    let prepared: ReturnType<typeof tool.prepare>;
    try {
      prepared = tool.prepare(call.input);
    } catch (error) {
      if (error instanceof ValidationError) return fail(refusal("InvalidToolInput", error.message));
      throw error;
    }

    const env = environmentOf(call, context);
    const refused = prepared.refuse(env);
    if (refused) return fail(refused);
    const approved =
      context.preAuthorized.includes(call.name) || (context.approvedCalls ?? []).includes(call.toolUseId);
    if (prepared.risk === "irreversible" && !approved) {
      // The loop's approval gate asks a human first; reaching here means no approval covers this call.
      return fail(
        refusal(
          "ApprovalRequired",
          `Tool '${call.name}' is irreversible here and needs a human approval that this call does not have; it runs once approved, or without approval when the GoalSpec's approval.preAuthorized lists '${call.name}'.`,
        ),
      );
    }

    try {
      const outcome = await successOutcome(await prepared.execute(env), env, inlineLimitBytes);
      // A read brings information back: a new result of it is progress (DESIGN §3); a write is not.
      return prepared.risk === "read"
        ? { ...outcome, observation: { ...outcome.observation, reads: true } }
        : outcome;
    } catch (error) {
      if (error instanceof ToolCallError) return fail(error);
      throw error;
    }
  }

  return {
    specsFor: (grantedTools, frozenTools) => registryFor(frozenTools).toolSpecs(grantedTools),
    riskOf: (call, frozenTools) => toolCallRisk(call, registryFor(frozenTools)),
    run,
    stage,
  };
}
