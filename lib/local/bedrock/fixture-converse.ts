import { createHash } from "node:crypto";
import type { ModelRole } from "../../../lambdas/core/models/model-roles";
import type { JsonObject } from "../shared/cloud-assembly-model";
import { AwsApiError, FixtureFileError } from "../shared/errors";
import { isJsonObject } from "../shared/json";
import { requestedThinking } from "./claude-request-rules";
import {
  availableFixtures,
  BEDROCK_ERROR_STATUS,
  fixtureFileOf,
  fixtureNameOf,
  type ModelFixture,
  parseModelFixture,
  type RecordedFrom,
  type ResponseTurn,
  readFixtureText,
} from "./model-fixtures";
import { type ReasoningBinding, redactedReasoningBytes, signReasoningText } from "./reasoning-signatures";

export interface ScriptedRequest {
  readonly fixturesDir: string;
  readonly modelId: string;
  readonly goalId: string;
  readonly role: ModelRole;
  readonly call: number;
  /** 1 for the first request of this (goal, role, call), 2 for its first retry, … */
  readonly attempt: number;
  /** The raw request body, for the derived input token count. */
  readonly body: string;
  /** The request as JSON: its thinking settings decide the answer's reasoning. */
  readonly request: JsonObject;
  /** What the answer's reasoning blocks are signed for (the model, goal, role and request prefix). */
  readonly binding: ReasoningBinding;
}

/** The fixtures parsed so far, by file, with the text they were parsed from. */
const parsedFixtures = new Map<string, { readonly text: string; readonly fixture: ModelFixture }>();

/**
 * The fixture in `file` as it is now: read on every call, so an edited fixture takes effect without
 * a restart, but parsed (every turn checked) only when its text changed since the last call.
 */
function currentFixture(file: string): ModelFixture {
  const text = readFixtureText(file);
  const known = parsedFixtures.get(file);
  if (known?.text === text) return known.fixture;
  const fixture = parseModelFixture(file, text);
  parsedFixtures.set(file, { text, fixture });
  return fixture;
}

/**
 * The Converse answer a fixture scripts for one attempt of one call, or the AwsApiError it scripts
 * (a Bedrock error turn, FixtureExhausted past the end, ResourceNotFoundException for a model id
 * that is not `scripted:<name>`, ValidationException for a bad fixture file).
 */
/** The fixture's answer to one attempt, and how long to wait before giving it (its `latencyMs`). */
export interface ScriptedAnswer {
  readonly response: JsonObject;
  readonly latencyMs: number;
}

/** A scripted Bedrock error, answered after the turn's `latencyMs`. */
export class ScriptedBedrockError extends AwsApiError {
  constructor(
    code: string,
    message: string,
    statusCode: number,
    readonly latencyMs: number,
  ) {
    super(code, message, statusCode);
  }
}

export function scriptedConverse(request: ScriptedRequest): ScriptedAnswer {
  const { fixturesDir, modelId, role, call, attempt } = request;
  const name = fixtureNameOf(modelId);
  if (name === undefined) {
    const available = availableFixtures(fixturesDir).join(", ") || "none";
    throw new AwsApiError(
      "ResourceNotFoundException",
      `Model '${modelId}' is not served by the local Bedrock endpoint: ` +
        `use 'scripted:<name>' for ${fixtureFileOf(fixturesDir, "<name>")} (available: ${available}), ` +
        "or 'openai:<model>' for a model of an OpenAI-compatible server such as Ollama (--openai-url), " +
        "with npm start -- --model or a goal's models.default; npm start -- --record <name> calls real Bedrock",
      404,
    );
  }
  const file = fixtureFileOf(fixturesDir, name);
  let fixture: ModelFixture;
  try {
    fixture = currentFixture(file);
  } catch (error) {
    if (error instanceof FixtureFileError) throw new AwsApiError("ValidationException", error.message);
    throw error;
  }
  const calls = fixture.roles[role];
  const scripted = calls?.[call];
  const error = scripted?.errors[attempt - 1];
  if (error !== undefined) {
    throw new ScriptedBedrockError(
      error.error,
      error.message ?? `Scripted ${error.error} (${file}, role=${role} call=${call} attempt=${attempt})`,
      BEDROCK_ERROR_STATUS[error.error],
      error.latencyMs ?? 0,
    );
  }
  if (scripted?.response === undefined) {
    const scriptedCalls = calls?.length ?? 0;
    const usedUp = scripted === undefined ? "" : `; its ${scripted.errors.length} error turn(s) are used up`;
    throw new AwsApiError(
      "FixtureExhausted",
      `FixtureExhausted: role=${role} call=${call} has no scripted turn in ${file} ` +
        `(${scriptedCalls} call(s) scripted for role ${role}${usedUp})`,
    );
  }
  return {
    response: converseResponse(scripted.response, request, fixture.thinking, fixture.recordedFrom),
    latencyMs: scripted.response.latencyMs ?? 0,
  };
}

/**
 * A Converse response for a scripted turn; usage derived from sizes when the fixture gives none. A
 * model that thinks answers with a signed reasoning block first, as the Claude 5.5 models do.
 */
function converseResponse(
  turn: ResponseTurn,
  request: ScriptedRequest,
  thinks: boolean,
  recorded: RecordedFrom | undefined,
): JsonObject {
  const toolUses =
    turn.toolUse === undefined ? [] : Array.isArray(turn.toolUse) ? turn.toolUse : [turn.toolUse];
  const answer: JsonObject[] = [
    ...(turn.text === undefined ? [] : [{ text: turn.text }]),
    ...toolUses.map((toolUse, index) => ({
      toolUse: {
        toolUseId: toolUse.toolUseId ?? toolUseIdOf(request, index),
        name: toolUse.name,
        input: toolUse.input,
      },
    })),
  ];
  // A recorded turn carries the reasoning the model sent, or none; a scripted one gets it generated.
  const thinking =
    recorded !== undefined
      ? recordedReasoningOf(turn)
      : thinks && thinksNow(request.request)
        ? reasoningOf(turn, request)
        : undefined;
  const content = thinking === undefined ? answer : [thinking.block, ...answer];
  // Roughly four characters per token: enough for cost accounting to move in offline runs. The
  // reasoning counts by its text (its signature carries it, it is no output of its own), and it is
  // inside the output tokens, as Bedrock reports thinking.
  const inputTokens = turn.usage?.inputTokens ?? Math.max(1, Math.ceil(Buffer.byteLength(request.body) / 4));
  const outputChars = JSON.stringify(answer).length + (thinking?.text.length ?? 0);
  const outputTokens = turn.usage?.outputTokens ?? Math.max(1, Math.ceil(outputChars / 4));
  const { cacheReadInputTokens, cacheWriteInputTokens } = turn.usage ?? {};
  return {
    output: { message: { role: "assistant", content } },
    stopReason: turn.stopReason ?? (toolUses.length > 0 ? "tool_use" : "end_turn"),
    usage: {
      inputTokens,
      outputTokens,
      totalTokens: inputTokens + outputTokens,
      ...(cacheReadInputTokens === undefined ? {} : { cacheReadInputTokens }),
      ...(cacheWriteInputTokens === undefined ? {} : { cacheWriteInputTokens }),
    },
    metrics: { latencyMs: 1 },
  };
}

/** Stable across replays: the same goal, role, call and position always get the same id. */
function toolUseIdOf(request: ScriptedRequest, index: number): string {
  return stableToolUseId(request, index);
}

/** A tool call id derived from the goal, role, call and position (a model that gives none gets one). */
export function stableToolUseId(
  key: { readonly goalId: string; readonly role: string; readonly call: number },
  index: number,
): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([key.goalId, key.role, key.call, index]))
    .digest("base64url");
  return `tooluse_${digest.replace(/[-_]/g, "").slice(0, 22)}`;
}

/**
 * Whether the model thinks before this answer: adaptive thinking (the default) always does here;
 * `between_tools` only after a tool result (no up-front thinking); `disabled` never.
 */
function thinksNow(request: JsonObject): boolean {
  const { type } = requestedThinking(request);
  if (type === "disabled") return false;
  if (type !== "between_tools") return true;
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const last = messages.at(-1);
  const content = isJsonObject(last) && Array.isArray(last.content) ? last.content : [];
  return content.some((block) => isJsonObject(block) && "toolResult" in block);
}

/** The answer's reasoning block, signed for the request, and the text it stands for. */
function reasoningOf(turn: ResponseTurn, request: ScriptedRequest): { block: JsonObject; text: string } {
  const text = turn.reasoning ?? generatedReasoning(turn, request);
  if (turn.redacted) {
    const bytes = redactedReasoningBytes(request.binding);
    return { block: { reasoningContent: { redactedContent: bytes.toString("base64") } }, text };
  }
  const signature = signReasoningText(request.binding, text);
  return { block: { reasoningContent: { reasoningText: { text, signature } } }, text };
}

/** A recorded turn's reasoning block exactly as the service sent it, or undefined when it sent none. */
function recordedReasoningOf(turn: ResponseTurn): { block: JsonObject; text: string } | undefined {
  if (turn.redacted && turn.redactedContent !== undefined) {
    return { block: { reasoningContent: { redactedContent: turn.redactedContent } }, text: "" };
  }
  if (turn.reasoning === undefined) return undefined;
  const reasoningText = {
    text: turn.reasoning,
    ...(turn.signature === undefined ? {} : { signature: turn.signature }),
  };
  return { block: { reasoningContent: { reasoningText } }, text: turn.reasoning };
}

/** A reasoning block's identity: its text and signature, or its redacted bytes (base64). */
function reasoningKey(reasoning: JsonObject): string | undefined {
  const text = isJsonObject(reasoning.reasoningText) ? reasoning.reasoningText : undefined;
  if (text !== undefined) {
    if (typeof text.signature !== "string" || typeof text.text !== "string") return undefined;
    return JSON.stringify(["text", text.text, text.signature]);
  }
  return typeof reasoning.redactedContent === "string"
    ? JSON.stringify(["redacted", reasoning.redactedContent])
    : undefined;
}

/** Each recorded fixture's blocks, by reasoningKey, with the role whose conversation they were made in. */
const recordedBlocks = new WeakMap<ModelFixture, ReadonlyMap<string, ModelRole>>();

function recordedBlocksOf(fixture: ModelFixture): ReadonlyMap<string, ModelRole> {
  const known = recordedBlocks.get(fixture);
  if (known !== undefined) return known;
  const blocks = new Map<string, ModelRole>();
  for (const [role, calls] of Object.entries(fixture.roles)) {
    for (const call of calls ?? []) {
      const reasoning = call.response === undefined ? undefined : recordedReasoningOf(call.response);
      const key =
        reasoning && isJsonObject(reasoning.block.reasoningContent)
          ? reasoningKey(reasoning.block.reasoningContent)
          : undefined;
      if (key !== undefined) blocks.set(key, role as ModelRole);
    }
  }
  recordedBlocks.set(fixture, blocks);
  return blocks;
}

/**
 * The role a reasoning block sent back to a recorded fixture model was recorded for, when it is
 * one of the file's recorded blocks byte for byte (text and signature, or redacted bytes); else
 * undefined. Its signature is the real service's, which only the service can check: the recording
 * is what vouches for it.
 */
export function recordedReasoningRole(
  fixturesDir: string,
  modelId: string,
  reasoning: JsonObject,
): ModelRole | undefined {
  const name = fixtureNameOf(modelId);
  const key = reasoningKey(reasoning);
  if (name === undefined || key === undefined) return undefined;
  let fixture: ModelFixture;
  try {
    fixture = currentFixture(fixtureFileOf(fixturesDir, name));
  } catch {
    // An unreadable file vouches for nothing; the answer itself reports what is wrong with it.
    return undefined;
  }
  if (fixture.recordedFrom === undefined) return undefined;
  return recordedBlocksOf(fixture).get(key);
}

/**
 * Sentences of scripted thinking per effort: the deeper the effort, the longer the thinking, as
 * real runs show (output grows many times from low to max). The lengths are the endpoint's, not a
 * measurement: a recorded real run is what says how long a model thinks.
 */
const THOUGHTS_PER_EFFORT: Readonly<Record<string, number>> = {
  low: 1,
  medium: 4,
  high: 12,
  xhigh: 24,
  max: 48,
};

/** Scripted thinking for a turn whose fixture gives none: what it will do, at the request's effort. */
function generatedReasoning(turn: ResponseTurn, request: ScriptedRequest): string {
  const toolUses =
    turn.toolUse === undefined ? [] : Array.isArray(turn.toolUse) ? turn.toolUse : [turn.toolUse];
  const plan =
    toolUses.length > 0
      ? `The next step calls ${toolUses.map((toolUse) => toolUse.name).join(" and ")}.`
      : "No tool is needed now: I answer in text.";
  const { effort } = requestedThinking(request.request);
  const count = THOUGHTS_PER_EFFORT[effort] ?? THOUGHTS_PER_EFFORT.high ?? 1;
  const checks = Array.from(
    { length: count - 1 },
    (_, index) =>
      `Check ${index + 1}: what the steps so far showed, weighed against the goal's success checks and constraints.`,
  );
  return [`Thinking for the ${request.role} call ${request.call}.`, plan, ...checks].join(" ");
}
