import { PatternSchema } from "../../core/goal/goal-spec";
import type { ModelTiers } from "../../core/models/model-tiers";
import * as z from "../../core/zod";
import { BUILT_IN_TOOL_NAMES } from "../../tools/built-in-tool-names";
import { parseModelThinking, splitList } from "../handler-environment";
import { ApiConfigurationError } from "./api-errors";

/** STATE_MACHINE_ARNS: `{"react": "arn:aws:states:…"}`, one entry per deployed pattern. */
const StateMachineArnsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.partialRecord(PatternSchema, z.string().check(z.minLength(1))),
);

const ApiEnvSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    GOAL_TABLE_NAME: z.string().check(z.minLength(1)),
    STATE_MACHINE_ARNS: z.string().check(z.minLength(1)),
    /** The bus human inputs (revision, resume, cancel, approval decisions) are published on. */
    GOAL_EVENT_BUS_NAME: z.optional(z.string().check(z.minLength(1))),
    /** The deployment's models (GoalsApi `models`): all three or none. */
    HEAVY_MODEL_ID: z.optional(z.string().check(z.minLength(1))),
    FAST_MODEL_ID: z.optional(z.string().check(z.minLength(1))),
    ALLOWED_MODEL_IDS: z.optional(z.string().check(z.minLength(1))),
    /** The deployment's `models.thinking` (JSON), with the models; unset: every role's default. */
    MODEL_THINKING: z.optional(z.string()),
    /** The deployment's own tools (LambdaTools), comma-separated: a GoalSpec may grant these and the built-ins. */
    USER_TOOL_NAMES: z.optional(z.string()),
    /** The configured MCP servers (McpServers), comma-separated, and the function that lists their tools. */
    MCP_SERVER_NAMES: z.optional(z.string()),
    MCP_GATEWAY_FUNCTION: z.optional(z.string().check(z.minLength(1))),
    /** How long (ms) the live alias's target is reused; the local stack sets 0. Unset: 5 s. */
    LIVE_ALIAS_CACHE_MS: z.optional(z.coerce.number().check(z.int(), z.gte(0), z.lte(60_000))),
  }),
);

export interface ApiConfig {
  readonly tableName: string;
  readonly stateMachineArns: z.infer<typeof StateMachineArnsSchema>;
  /** Absent when the API was deployed without a bus: publishing routes then answer 503. */
  readonly eventBusName?: string;
  /** Absent when the API was deployed without `models`: no allow-list check, no select call. */
  readonly models?: { readonly tiers: ModelTiers; readonly allowedModelIds: readonly string[] };
  /** Every tool a GoalSpec may grant: the built-ins and USER_TOOL_NAMES. */
  readonly toolNames: readonly string[];
  /** The MCP servers a GoalSpec may grant tools of, and the McpGateway function that lists them. */
  readonly mcp?: { readonly servers: readonly string[]; readonly gatewayFunction: string };
  /** How long the live alias's target is reused (sfnVersionDirectory). */
  readonly liveAliasCacheMs?: number;
}

/** Reads the API's environment; a missing or malformed variable stops the cold start, naming it. */
export function readApiConfig(env: Record<string, string | undefined>): ApiConfig {
  const parsed = ApiEnvSchema.safeParse(env);
  if (!parsed.success) {
    const names = parsed.error.issues.map((issue) => issue.path.join(".")).join(", ");
    throw new ApiConfigurationError(`Missing environment variables: ${names}`);
  }
  let arns: unknown;
  try {
    arns = JSON.parse(parsed.data.STATE_MACHINE_ARNS);
  } catch (error) {
    throw new ApiConfigurationError("STATE_MACHINE_ARNS is not JSON", { cause: error });
  }
  const stateMachineArns = StateMachineArnsSchema.safeParse(arns);
  if (!stateMachineArns.success) {
    throw new ApiConfigurationError(
      `STATE_MACHINE_ARNS must map patterns (${PatternSchema.options.join(", ")}) to ARNs`,
      { cause: stateMachineArns.error },
    );
  }
  return {
    tableName: parsed.data.GOAL_TABLE_NAME,
    stateMachineArns: stateMachineArns.data,
    ...(parsed.data.GOAL_EVENT_BUS_NAME === undefined
      ? {}
      : { eventBusName: parsed.data.GOAL_EVENT_BUS_NAME }),
    ...modelsOf(parsed.data),
    toolNames: [...BUILT_IN_TOOL_NAMES, ...splitList(parsed.data.USER_TOOL_NAMES ?? "")],
    ...mcpOf(parsed.data),
    ...(parsed.data.LIVE_ALIAS_CACHE_MS === undefined
      ? {}
      : { liveAliasCacheMs: parsed.data.LIVE_ALIAS_CACHE_MS }),
  };
}

function mcpOf(env: z.infer<typeof ApiEnvSchema>): Pick<ApiConfig, "mcp"> {
  const servers = splitList(env.MCP_SERVER_NAMES ?? "");
  if (servers.length === 0) return {};
  if (env.MCP_GATEWAY_FUNCTION === undefined) {
    throw new ApiConfigurationError("MCP_SERVER_NAMES is set without MCP_GATEWAY_FUNCTION (McpServers)");
  }
  return { mcp: { servers, gatewayFunction: env.MCP_GATEWAY_FUNCTION } };
}

function modelsOf(env: z.infer<typeof ApiEnvSchema>): Pick<ApiConfig, "models"> {
  const { HEAVY_MODEL_ID, FAST_MODEL_ID, ALLOWED_MODEL_IDS } = env;
  if (HEAVY_MODEL_ID === undefined && FAST_MODEL_ID === undefined && ALLOWED_MODEL_IDS === undefined)
    return {};
  if (HEAVY_MODEL_ID === undefined || FAST_MODEL_ID === undefined || ALLOWED_MODEL_IDS === undefined) {
    throw new ApiConfigurationError(
      "HEAVY_MODEL_ID, FAST_MODEL_ID and ALLOWED_MODEL_IDS must be set together (GoalsApi `models`)",
    );
  }
  const allowedModelIds = splitList(ALLOWED_MODEL_IDS);
  if (allowedModelIds.length === 0) {
    throw new ApiConfigurationError(
      `ALLOWED_MODEL_IDS names no model ('${ALLOWED_MODEL_IDS}'): every goal naming a model would be refused`,
    );
  }
  const thinking = parseModelThinking(env.MODEL_THINKING);
  const tiers = {
    heavyModelId: HEAVY_MODEL_ID,
    fastModelId: FAST_MODEL_ID,
    ...(thinking === undefined ? {} : { thinking }),
  };
  return { models: { tiers, allowedModelIds } };
}
