import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { isJsonObject } from "../shared/json";
import { MODEL_ERRORS } from "./claude-request-rules";
import { checkReasoningBlock, prefixHash } from "./reasoning-signatures";

/**
 * The rules of thinking blocks sent back, as the Claude 5.5 models check them (Anthropic,
 * "Thinking in tool and multi-turn workflows" and "Preserved thinking"; the Amazon Bedrock user
 * guide, "Preserved thinking"): a block goes back complete and unmodified or not at all, only to the
 * model and the conversation it was made in, and the latest turn with tool calls must bring its
 * blocks back while nothing before it changed. docs/local-stack.md lists each rule with its source.
 */

/** Which conversation a request belongs to: the model, and the goal and role of its metadata. */
export interface RequestConversation {
  readonly modelId: string;
  readonly goalId: string;
  readonly role: string;
}

/** How the service names a Converse block in its errors. */
function typeName(block: JsonValue | undefined): string {
  if (!isJsonObject(block)) return "unknown";
  if ("toolUse" in block) return "tool_use";
  if ("toolResult" in block) return "tool_result";
  if ("reasoningContent" in block) {
    return isJsonObject(block.reasoningContent) && "redactedContent" in block.reasoningContent
      ? "redacted_thinking"
      : "thinking";
  }
  return Object.keys(block)[0] ?? "unknown";
}

const isReasoning = (block: JsonValue | undefined): boolean =>
  isJsonObject(block) && isJsonObject(block.reasoningContent);

const contentOf = (message: JsonValue | undefined): JsonValue[] =>
  isJsonObject(message) && Array.isArray(message.content) ? message.content : [];

/**
 * The role of a recorded conversation a block was made in, when a recording vouches for it (a block
 * the real service signed, sent back byte for byte as recorded); else undefined.
 */
export type RecordedBlockRole = (reasoning: JsonObject) => string | undefined;

/** The first problem with a reasoning block the request sends back, or undefined. */
function sentBlockProblem(
  request: JsonObject,
  conversation: RequestConversation,
  recordedRole: RecordedBlockRole,
): string | undefined {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  for (const [i, message] of messages.entries()) {
    const content = contentOf(message);
    for (const [j, block] of content.entries()) {
      if (!isJsonObject(block) || !isJsonObject(block.reasoningContent)) continue;
      const where = `messages.${i}.content.${j}`;
      if (!isJsonObject(message) || message.role !== "assistant") {
        return `${where}: \`thinking\` blocks are only taken in assistant messages`;
      }
      if (!content.slice(0, j).every(isReasoning)) {
        return `${where}: If an assistant message contains any thinking blocks, the first block must be \`thinking\` or \`redacted_thinking\`. Found \`${typeName(content[0])}\`.`;
      }
      // A recorded block carries the service's signature, not the endpoint's: the recording vouches
      // for its bytes, and it belongs to the role's conversation it was recorded in.
      const recorded = recordedRole(block.reasoningContent);
      if (recorded !== undefined) {
        if (recorded === conversation.role) continue;
        return `${where}: Invalid \`signature\` in \`${typeName(block)}\` block. The block is bound to a different conversation (recorded for role ${recorded}).`;
      }
      const check = checkReasoningBlock(block.reasoningContent);
      if (!check.valid) return `${where}: Invalid \`signature\` in \`${typeName(block)}\` block.`;
      const { binding } = check;
      if (binding.modelId !== conversation.modelId) {
        // The service drops such a block without a word (the model cannot read it); refused here so
        // the lost thinking shows.
        return `${where}: the \`${typeName(block)}\` block was produced by model '${binding.modelId}', which '${conversation.modelId}' cannot read; send a model only its own blocks`;
      }
      const sameConversation =
        binding.goalId === conversation.goalId &&
        binding.role === conversation.role &&
        binding.prefix === prefixHash(request, i);
      if (!sameConversation) {
        return `${where}: Invalid \`signature\` in \`${typeName(block)}\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".`;
      }
    }
  }
  return undefined;
}

/** An answer with reasoning, as the round trip must bring it back. */
interface AnsweredTurn {
  /** `prefixHash` of the request it answered. */
  readonly prefix: string;
  /** How many reasoning blocks it started with. */
  readonly reasoning: number;
}

/** How many answers the endpoint remembers for the round-trip check (the oldest are forgotten). */
const REMEMBERED_TURNS = 10_000;

/**
 * The answers this endpoint gave with reasoning, by the tool calls they made: the latest assistant
 * turn with tool calls of a later request is found by its tool call ids. In memory: after a restart
 * the endpoint only checks the blocks it is sent (their signatures hold), not the ones left out.
 */
export class AnsweredTurns {
  private readonly turns = new Map<string, AnsweredTurn>();

  private static key(conversation: Pick<RequestConversation, "goalId" | "role">, toolUseId: string): string {
    return JSON.stringify([conversation.goalId, conversation.role, toolUseId]);
  }

  /** Remembers an answer the endpoint gave to `request` (its content blocks, wire JSON). */
  remember(request: JsonObject, conversation: RequestConversation, content: readonly JsonValue[]): void {
    const reasoning = content.filter(isReasoning).length;
    if (reasoning === 0) return;
    const messages = Array.isArray(request.messages) ? request.messages : [];
    const answered = { prefix: prefixHash(request, messages.length), reasoning };
    for (const block of content) {
      if (!isJsonObject(block) || !isJsonObject(block.toolUse)) continue;
      const { toolUseId } = block.toolUse;
      if (typeof toolUseId !== "string") continue;
      const key = AnsweredTurns.key(conversation, toolUseId);
      this.turns.delete(key);
      this.turns.set(key, answered);
    }
    while (this.turns.size > REMEMBERED_TURNS) {
      const oldest = this.turns.keys().next().value;
      if (oldest === undefined) break;
      this.turns.delete(oldest);
    }
  }

  find(conversation: RequestConversation, toolUseId: string): AnsweredTurn | undefined {
    return this.turns.get(AnsweredTurns.key(conversation, toolUseId));
  }
}

/**
 * The round trip: the request's last assistant turn with tool calls must start with the reasoning
 * blocks it was answered with, unless what came before it changed since (then its blocks are
 * invalid, and leaving them out is the documented way on).
 */
function roundTripProblem(
  request: JsonObject,
  conversation: RequestConversation,
  answered: AnsweredTurns,
): string | undefined {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    const content = contentOf(message);
    const toolUse = content.find((block) => isJsonObject(block) && isJsonObject(block.toolUse));
    if (!isJsonObject(message) || message.role !== "assistant" || !isJsonObject(toolUse)) continue;
    const toolUseId = isJsonObject(toolUse.toolUse) ? toolUse.toolUse.toolUseId : undefined;
    const turn = typeof toolUseId === "string" ? answered.find(conversation, toolUseId) : undefined;
    if (turn === undefined) return undefined;
    const sent = content.findIndex((block) => !isReasoning(block));
    const carried = sent === -1 ? content.length : sent;
    if (carried >= turn.reasoning) return undefined;
    if (carried === 0 && turn.prefix !== prefixHash(request, i)) return undefined;
    return `messages.${i}.content.${carried}.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${typeName(content[carried])}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
  }
  return undefined;
}

/**
 * What a request does wrong with the thinking blocks it sends back, in the service's words (Bedrock
 * prefixes the model's own errors), or undefined.
 */
export function reasoningProblem(
  request: JsonObject,
  conversation: RequestConversation,
  answered: AnsweredTurns,
  recordedRole: RecordedBlockRole = () => undefined,
): string | undefined {
  const problem =
    sentBlockProblem(request, conversation, recordedRole) ??
    roundTripProblem(request, conversation, answered);
  return problem === undefined ? undefined : `${MODEL_ERRORS}${problem}`;
}
