import {
  type ContentBlock as BedrockContentBlock,
  type Message as BedrockMessage,
  type ReasoningContentBlock as BedrockReasoningContent,
  type BedrockRuntimeClient,
  type ToolUseBlock as BedrockToolUseBlock,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  type SystemContentBlock,
  type Tool,
} from "@aws-sdk/client-bedrock-runtime";
import { ValidationError } from "../../core/goal/errors";
import { parseOrThrow } from "../../core/goal/validation";
import {
  type ContentBlock,
  type Message,
  type ModelClient,
  ModelFatalError,
  type ModelRequest,
  ModelRequestSchema,
  type ModelTurn,
  ModelTurnSchema,
  type ReasoningContent,
  type ThinkingRequest,
  type ToolSpec,
} from "../../core/ports/model-client";
import { faultFromEnvironment, withReasoningFaultInjection } from "../shared/fault-injection";
import { traced } from "../shared/xray-subsegments";
import { MALFORMED_MODEL_RESPONSE, toModelError } from "./bedrock-errors";
import { createBedrockRuntimeClient } from "./bedrock-runtime-client";

/** A JSON document as the SDK types it (tool inputs, tool input schemas, JSON tool results). */
type Document = Exclude<BedrockToolUseBlock["input"], undefined>;

export interface BedrockModelClientProps {
  /** Built once at module scope (see `createBedrockRuntimeClient`), so warm invocations reuse it. */
  readonly client: BedrockRuntimeClient;
}

/**
 * The ModelClient port over Bedrock Converse. The same adapter serves real Bedrock and the local
 * fixture endpoint: `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` decides which, and `requestMetadata` tells
 * the fixture endpoint which scripted turn to serve.
 */
export class BedrockModelClient implements ModelClient {
  private readonly client: BedrockRuntimeClient;

  constructor(props: BedrockModelClientProps) {
    this.client = props.client;
  }

  async converse(request: ModelRequest): Promise<ModelTurn> {
    // Fail on a bad request before paying for a call; the ValidationError names the bad field.
    const valid = parseOrThrow(ModelRequestSchema, request, "ModelRequest");
    let output: ConverseCommandOutput;
    try {
      // An X-Ray subsegment per call, searchable by goal, role and model.
      const annotations = { goalId: valid.goalId, role: valid.role, model: valid.modelId, call: valid.call };
      output = await traced("Bedrock.Converse", annotations, () =>
        this.client.send(new ConverseCommand(toConverseInput(valid))),
      );
    } catch (error) {
      throw toModelError(error);
    }
    return toModelTurn(valid.modelId, output);
  }
}

/**
 * The model client a handler builds once at module scope: Bedrock Converse through the runtime
 * client, with the chaos-testing fault of GOAL_LOOPS_FAULT_INJECTION when it asks for one
 * (`drop-reasoning`; a bad value fails here, at init).
 */
export function createModelClient(): ModelClient {
  const model = new BedrockModelClient({ client: createBedrockRuntimeClient() });
  return withReasoningFaultInjection(model, faultFromEnvironment());
}

function toConverseInput(request: ModelRequest): ConverseCommandInput {
  const { maxTokens } = request;
  return {
    modelId: request.modelId,
    system: request.system.map(
      (block): SystemContentBlock =>
        "text" in block ? { text: block.text } : { cachePoint: block.cachePoint },
    ),
    messages: request.messages.map(toBedrockMessage),
    // Bedrock rejects an empty tool list, so a call without tools sends no toolConfig at all.
    ...(request.tools?.length ? { toolConfig: { tools: request.tools.map(toBedrockTool) } } : {}),
    // Only maxTokens: no temperature, topP or toolChoice, which the Claude 5.5 models answer 400 to.
    ...(maxTokens !== undefined ? { inferenceConfig: { maxTokens } } : {}),
    ...(request.thinking ? { additionalModelRequestFields: thinkingFields(request.thinking) } : {}),
    // The local fixture endpoint keys scripted turns on these; in AWS they tag invocation logs.
    requestMetadata: { goalId: request.goalId, role: request.role, call: String(request.call) },
  };
}

/**
 * The role's thinking as Bedrock passes it to an Anthropic model: `thinking` and `output_config`
 * in `additionalModelRequestFields` (Bedrock user guide, Adaptive thinking). `display: summarized`
 * asks the models that omit their thinking's text by default (Claude 5.5) for its summary, which
 * the events show; the signature carries the full thinking either way.
 */
function thinkingFields(thinking: ThinkingRequest): Document {
  switch (thinking.type) {
    case "adaptive":
    case "between_tools":
      return {
        thinking: { type: thinking.type, ...(thinking.summarized ? { display: "summarized" } : {}) },
        output_config: { effort: thinking.effort },
      };
    case "disabled":
      return {
        thinking: { type: "disabled" },
        ...(thinking.effort ? { output_config: { effort: thinking.effort } } : {}),
      };
    case "enabled":
      return { thinking: { type: "enabled", budget_tokens: thinking.budgetTokens } };
  }
}

function toBedrockMessage(message: Message): BedrockMessage {
  return { role: message.role, content: message.content.map(toBedrockBlock) };
}

function toBedrockBlock(block: ContentBlock): BedrockContentBlock {
  if ("text" in block) return { text: block.text };
  if ("toolUse" in block) {
    const { toolUseId, name, input } = block.toolUse;
    return { toolUse: { toolUseId, name, input } };
  }
  if ("toolResult" in block) {
    const { toolUseId, status, content } = block.toolResult;
    return {
      toolResult: {
        toolUseId,
        status,
        content: content.map((item) => ("text" in item ? { text: item.text } : { json: item.json })),
      },
    };
  }
  if ("reasoningContent" in block) return { reasoningContent: toBedrockReasoning(block.reasoningContent) };
  return { cachePoint: block.cachePoint };
}

/** A kept reasoning block as Converse takes it back: the same text and signature, the same bytes. */
function toBedrockReasoning(reasoning: ReasoningContent): BedrockReasoningContent {
  if ("redactedContent" in reasoning) {
    return { redactedContent: Buffer.from(reasoning.redactedContent, "base64") };
  }
  const { text, signature } = reasoning.reasoningText;
  return { reasoningText: { text, ...(signature === undefined ? {} : { signature }) } };
}

function toBedrockTool(tool: ToolSpec): Tool {
  return {
    toolSpec: {
      name: tool.name,
      description: tool.description,
      // A JSON Schema generated from the tool's zod schema: plain JSON, whatever the port's type says.
      inputSchema: { json: tool.inputSchema as Document },
    },
  };
}

function toModelTurn(modelId: string, output: ConverseCommandOutput): ModelTurn {
  const message = output.output?.message;
  if (message === undefined) {
    throw new ModelFatalError(MALFORMED_MODEL_RESPONSE, "Bedrock Converse returned no output message");
  }
  const usage = output.usage;
  const candidate = {
    // Converse echoes no model id; the requested one is what pricing and checkpoints key on.
    modelId,
    stopReason: output.stopReason,
    content: (message.content ?? []).flatMap(toTurnBlock),
    usage: {
      inputTokens: usage?.inputTokens,
      outputTokens: usage?.outputTokens,
      cacheReadTokens: usage?.cacheReadInputTokens ?? 0,
      cacheWriteTokens: usage?.cacheWriteInputTokens ?? 0,
    },
  };
  try {
    return parseOrThrow(ModelTurnSchema, candidate, "ModelTurn");
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    // A response the port cannot represent (an unknown stop reason, missing token counts) is the
    // service's fault, not the caller's: a fatal model error rather than a ValidationError.
    throw new ModelFatalError(MALFORMED_MODEL_RESPONSE, `Bedrock Converse response: ${error.message}`, {
      cause: error,
    });
  }
}

/**
 * Keeps the blocks the port represents, in the model's order: reasoning, text and tool calls.
 * Reasoning is kept as received: its text (empty when the model omits it) and signature, or its
 * redacted bytes as base64. Others are dropped on purpose: `citationsContent` (only for document
 * inputs, which no request sends), and blocks an assistant turn never carries here (images,
 * documents, guard content, cache points, `$unknown` members of newer APIs). A reasoning member
 * the SDK does not know is dropped whole: a reasoning block goes back verbatim or not at all.
 */
function toTurnBlock(block: BedrockContentBlock): unknown[] {
  if (block.text !== undefined) return [{ text: block.text }];
  if (block.toolUse !== undefined) {
    const { toolUseId, name, input } = block.toolUse;
    return [{ toolUse: { toolUseId, name, input } }];
  }
  const reasoning = block.reasoningContent;
  if (reasoning?.reasoningText !== undefined) {
    const { text, signature } = reasoning.reasoningText;
    return [
      {
        reasoningContent: {
          reasoningText: { text: text ?? "", ...(signature === undefined ? {} : { signature }) },
        },
      },
    ];
  }
  if (reasoning?.redactedContent !== undefined) {
    return [
      { reasoningContent: { redactedContent: Buffer.from(reasoning.redactedContent).toString("base64") } },
    ];
  }
  return [];
}
