import { GoalLoopsError } from "../goal/errors";
import { MIN_THINKING_BUDGET_TOKENS, ThinkingEffortSchema } from "../goal/thinking-settings";
import { ModelRoleSchema } from "../models/model-roles";
import * as z from "../zod";

/** A JSON value as the model sees it in tool inputs and results. */
const JsonSchema = /* @__PURE__ */ z.lazySchema(() => z.json());

export const ToolUseBlockSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    toolUseId: z.string(),
    name: z.string(),
    input: JsonSchema,
  }),
);
export type ToolUseBlock = z.infer<typeof ToolUseBlockSchema>;

export const ToolResultBlockSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    toolUseId: z.string(),
    status: z.enum(["success", "error"]),
    content: z.array(z.union([z.object({ text: z.string() }), z.object({ json: JsonSchema })])),
  }),
);
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>;

/**
 * A reasoning block as Converse returns it: the model's thinking as text (a summary, or empty when
 * the model omits it) with the signature that binds it to the model and the conversation, or the
 * provider's encrypted `redactedContent` (binary, kept as base64). Kept exactly as received and sent
 * back byte for byte, or not at all: never edited, truncated or moved to another history.
 */
export const ReasoningContentSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.union([
    z.object({ reasoningText: z.object({ text: z.string(), signature: z.optional(z.string()) }) }),
    z.object({ redactedContent: z.base64() }),
  ]),
);
export type ReasoningContent = z.infer<typeof ReasoningContentSchema>;

/** Content blocks in the shape Converse uses, so the Bedrock adapter maps them one to one. */
/** How long a prompt cache entry lives after its last use (Bedrock CachePointBlock `ttl`; absent: 5 minutes). */
export const CACHE_TTLS = ["5m", "1h"] as const;
export type CacheTtl = (typeof CACHE_TTLS)[number];

/**
 * A Bedrock CachePointBlock: `type` is always `default`; `ttl` `1h` keeps the entry an hour, on the
 * models that take it (context-settings.json `promptCache.hourTtlModels`).
 */
export const CachePointSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    type: z.literal("default"),
    ttl: z.optional(z.enum(CACHE_TTLS)),
  }),
);
export type CachePoint = z.infer<typeof CachePointSchema>;

export const ContentBlockSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.union([
    z.object({ text: z.string() }),
    z.object({ toolUse: ToolUseBlockSchema }),
    z.object({ toolResult: ToolResultBlockSchema }),
    /** Only in assistant turns: the model's thinking, first in its turn. */
    z.object({ reasoningContent: ReasoningContentSchema }),
    /** Marks the end of a stable prefix that the model may cache. */
    z.object({ cachePoint: CachePointSchema }),
  ]),
);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

export const MessageSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    role: z.enum(["user", "assistant"]),
    content: z.array(ContentBlockSchema).check(z.minLength(1)),
  }),
);
export type Message = z.infer<typeof MessageSchema>;

export const ToolSpecSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    name: z.string(),
    description: z.string(),
    /** JSON Schema of the tool's input, generated from its zod schema. */
    inputSchema: z.record(z.string(), z.unknown()),
  }),
);
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

/**
 * The thinking a request asks for, in the terms of the model's family (models/model-thinking.ts
 * decides it from the role's settings): the Bedrock adapter sends it as Converse documents it, in
 * `additionalModelRequestFields`. Absent: the request says nothing, and the model thinks as it
 * does by default.
 */
export const ThinkingRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.discriminatedUnion("type", [
    /** The model decides when and how much to think; `summarized` asks for the thinking's summary text. */
    z.object({ type: z.literal("adaptive"), effort: ThinkingEffortSchema, summarized: z.boolean() }),
    /** No up-front thinking, only between tool calls (Claude Sonnet 5.5's lowest setting). */
    z.object({ type: z.literal("between_tools"), effort: ThinkingEffortSchema, summarized: z.boolean() }),
    /** No thinking; the effort still shapes the answer on models that take one. */
    z.object({ type: z.literal("disabled"), effort: z.optional(ThinkingEffortSchema) }),
    /** A manual thinking budget (models without adaptive thinking). */
    z.object({
      type: z.literal("enabled"),
      budgetTokens: z.number().check(z.int(), z.gte(MIN_THINKING_BUDGET_TOKENS)),
    }),
  ]),
);
export type ThinkingRequest = z.infer<typeof ThinkingRequestSchema>;

export const ModelRequestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    modelId: z.string(),
    goalId: z.string(),
    role: ModelRoleSchema,
    /** The n-th call of this role for this goal, counted from the goal's checkpoints, from 0. */
    call: z.number().check(z.int(), z.gte(0)),
    /** System prompt blocks; a `cachePoint` block may follow the stable prefix. */
    system: z.array(z.union([z.object({ text: z.string() }), z.object({ cachePoint: CachePointSchema })])),
    /**
     * Ends with a user message: the Claude 5.5 models answer 400 to an assistant prefill (a last
     * assistant message the model would continue).
     */
    messages: z.array(MessageSchema).check(
      z.minLength(1),
      z.refine((messages) => messages.length === 0 || messages.at(-1)?.role === "user", {
        message: "must end with a user message (Claude 5.5 models refuse an assistant prefill)",
      }),
    ),
    tools: z.optional(z.array(ToolSpecSchema)),
    /** The output ceiling, thinking included (thinking tokens count toward it and are billed as output). */
    maxTokens: z.optional(z.number().check(z.int(), z.positive())),
    thinking: z.optional(ThinkingRequestSchema),
    // No temperature, top_p or tool choice: the Claude 5.5 models answer 400 to each of them, so the
    // port cannot express them and no request carries them.
  }),
);
export type ModelRequest = z.infer<typeof ModelRequestSchema>;

export const STOP_REASONS = [
  "end_turn",
  "tool_use",
  "max_tokens",
  "stop_sequence",
  "guardrail_intervened",
  "content_filtered",
  "malformed_model_output",
  "malformed_tool_use",
  "model_context_window_exceeded",
] as const;
export const StopReasonSchema = /* @__PURE__ */ z.lazySchema(() => z.enum(STOP_REASONS));

export const TokenUsageSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    inputTokens: z.number().check(z.int(), z.gte(0)),
    /** As Bedrock reports it: thinking tokens are inside, not counted apart (they are billed as output). */
    outputTokens: z.number().check(z.int(), z.gte(0)),
    cacheReadTokens: z.number().check(z.int(), z.gte(0)),
    cacheWriteTokens: z.number().check(z.int(), z.gte(0)),
  }),
);
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/**
 * One assistant turn, reasoning blocks included, as received. Checkpointed as is, so a retried step
 * reuses it instead of paying again, and a later prompt can send it back verbatim.
 */
export const ModelTurnSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    modelId: z.string(),
    stopReason: StopReasonSchema,
    content: z.array(ContentBlockSchema),
    usage: TokenUsageSchema,
  }),
);
export type ModelTurn = z.infer<typeof ModelTurnSchema>;

/**
 * Where a turn sits in a conversation that shows it again (ReAct's history): `key` names the
 * conversation's head (model, system prompt, tools, the history's opening) and `prompt` is the
 * message the turn answered, as sent. A later prompt shows `prompt` before the turn, so the history
 * only grows at its end; one whose head changed drops the turn's reasoning blocks, which are bound
 * to everything before them.
 */
export const TurnConversationSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    key: z.string().check(z.minLength(1)),
    prompt: z.string(),
  }),
);
export type TurnConversation = z.infer<typeof TurnConversationSchema>;

/**
 * The name a ModelClient throws when the model's rate limit refused the call (Bedrock's
 * ThrottlingException): capacity, not failure (models/capacity).
 */
export const MODEL_THROTTLED = "ThrottlingException";

/** The port every model call goes through: Bedrock in AWS, the same adapter against a local endpoint. */
export interface ModelClient {
  converse(request: ModelRequest): Promise<ModelTurn>;
}

/** A model error that may succeed when the step is retried (throttling, timeouts, 5xx). */
export class ModelRetryableError extends GoalLoopsError {
  override readonly name: string;
  override readonly retryable = true;
  constructor(name: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = name;
  }
}

/** A model error that no retry can fix (bad request, no access, unknown model). Never retried. */
export class ModelFatalError extends GoalLoopsError {
  override readonly name: string;
  constructor(name: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = name;
  }
}
