import * as z from "zod";
import { GoalLoopsError } from "../goal/errors";
import { ModelRoleSchema } from "../models/model-roles";

/** A JSON value as the model sees it in tool inputs and results. */
const JsonSchema = z.json();

export const ToolUseBlockSchema = z.object({
  toolUseId: z.string(),
  name: z.string(),
  input: JsonSchema,
});
export type ToolUseBlock = z.infer<typeof ToolUseBlockSchema>;

export const ToolResultBlockSchema = z.object({
  toolUseId: z.string(),
  status: z.enum(["success", "error"]),
  content: z.array(z.union([z.object({ text: z.string() }), z.object({ json: JsonSchema })])),
});
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>;

/** Content blocks in the shape Converse uses, so the Bedrock adapter maps them one to one. */
export const ContentBlockSchema = z.union([
  z.object({ text: z.string() }),
  z.object({ toolUse: ToolUseBlockSchema }),
  z.object({ toolResult: ToolResultBlockSchema }),
  /** Marks the end of a stable prefix that the model may cache. */
  z.object({ cachePoint: z.object({ type: z.literal("default") }) }),
]);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

export const MessageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.array(ContentBlockSchema).min(1),
});
export type Message = z.infer<typeof MessageSchema>;

export const ToolSpecSchema = z.object({
  name: z.string(),
  description: z.string(),
  /** JSON Schema of the tool's input, generated from its zod schema. */
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

export const ModelRequestSchema = z.object({
  modelId: z.string(),
  goalId: z.string(),
  role: ModelRoleSchema,
  /** The n-th call of this role for this goal, counted from the goal's checkpoints, from 0. */
  call: z.number().int().min(0),
  /** System prompt blocks; a `cachePoint` block may follow the stable prefix. */
  system: z.array(
    z.union([
      z.object({ text: z.string() }),
      z.object({ cachePoint: z.object({ type: z.literal("default") }) }),
    ]),
  ),
  /**
   * Ends with a user message: the Claude 5.5 models answer 400 to an assistant prefill (a last
   * assistant message the model would continue).
   */
  messages: z
    .array(MessageSchema)
    .min(1)
    .refine((messages) => messages.length === 0 || messages.at(-1)?.role === "user", {
      message: "must end with a user message (Claude 5.5 models refuse an assistant prefill)",
    }),
  tools: z.array(ToolSpecSchema).optional(),
  maxTokens: z.number().int().positive().optional(),
  // No temperature, top_p or tool choice: the Claude 5.5 models answer 400 to each of them, so the
  // port cannot express them and no request carries them.
});
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
export const StopReasonSchema = z.enum(STOP_REASONS);

export const TokenUsageSchema = z.object({
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  cacheReadTokens: z.number().int().min(0),
  cacheWriteTokens: z.number().int().min(0),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/** One assistant turn. Checkpointed as is, so a retried step reuses it instead of paying again. */
export const ModelTurnSchema = z.object({
  modelId: z.string(),
  stopReason: StopReasonSchema,
  content: z.array(ContentBlockSchema),
  usage: TokenUsageSchema,
});
export type ModelTurn = z.infer<typeof ModelTurnSchema>;

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
