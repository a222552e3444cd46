import { randomUUID } from "node:crypto";
import http2, {
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from "node:http2";
import * as z from "zod";
import { ModelRoleSchema } from "../../../lambdas/core/models/model-roles";
import type { TokenUsage } from "../../../lambdas/core/ports/model-client";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { AwsApiError } from "../shared/errors";
import { isJsonObject, parseJson } from "../shared/json";
import { listen } from "../shared/listen";
import type { BedrockUpstream } from "./bedrock-upstream";
import { cachePointProblem } from "./cache-point-rules";
import { claudeRequestProblem } from "./claude-request-rules";
import { AnsweredTurns, reasoningProblem } from "./claude-thinking-rules";
import {
  recordedReasoningRole,
  type ScriptedAnswer,
  ScriptedBedrockError,
  scriptedConverse,
  stableToolUseId,
} from "./fixture-converse";
import { FixtureRecorder } from "./fixture-recorder";
import { type LocalModelQuotas, ModelQuotaEnforcer, reservedTokensOfConverse } from "./model-quota-enforcer";
import { openModelReasoningProblem } from "./open-model-thinking-rules";
import {
  converseWithOpenAi,
  DEFAULT_OPENAI_URL,
  type OpenAiServer,
  openAiModelOf,
} from "./openai-chat-client";
import { prefixHash } from "./reasoning-signatures";

/** Waits `ms` (a fixture turn's `latencyMs`); nothing for 0. */
function delay(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolveDelay) => setTimeout(resolveDelay, ms));
}

/** One Converse request, as the tests and the bench see it. */
export interface ModelCallRecord {
  readonly modelId: string;
  readonly goalId: string;
  readonly role: string;
  readonly call: number;
  /** 1 for the first request of this (goal, role, call), 2 for its first retry, … */
  readonly attempt: number;
  /** The error answered, when the attempt failed, and its message. */
  readonly error?: string;
  readonly message?: string;
  readonly request: JsonObject;
  /** The answer, when the attempt succeeded: its reasoning blocks are what the next request must carry back. */
  readonly response?: JsonObject;
}

export interface CallKey {
  readonly goalId: string;
  readonly role: string;
  readonly call: number;
}

/**
 * One step of a call's exchange, in the order the endpoint saw them: the request `received`, then
 * (after the turn's `latencyMs`) the answer sent. Tests read overlap from it, never from a clock.
 */
export interface ExchangeEvent extends CallKey {
  readonly event: "received" | "answered";
}

export interface BedrockEndpoint {
  readonly url: string;
  /** Every request received and answer sent, oldest first (the last 1,000). */
  exchanges(): readonly ExchangeEvent[];
  /** How many requests were made for one (goal, role, call): 1 means the call was paid once. */
  callCount(key: CallKey): number;
  /** The requests made, oldest first (the last 1,000). */
  calls(): readonly ModelCallRecord[];
  /** How many requests a quota refused (ThrottlingException) so far; they are in no other count. */
  quotaRefusals(): number;
  close(): Promise<void>;
}

export interface BedrockEndpointOptions {
  readonly fixturesDir: string;
  readonly port?: number;
  /**
   * Answers every call with this model, whatever model id the request names (`npm start --
   * --model`): a goal that names its own model runs on it too.
   * @default - the model id of each request
   */
  readonly modelOverride?: string;
  /**
   * Where `openai:<model>` calls go (`--openai-url`, `OPENAI_API_KEY`).
   * @default - Ollama's http://127.0.0.1:11434/v1, no key
   */
  readonly openAi?: OpenAiServer;
  /**
   * Record every call (`--record <name>`): it goes to this upstream instead of being answered here,
   * and the answers are written to `<fixturesDir>/<name>.json` (fixture-recorder.ts).
   */
  readonly record?: { readonly name: string; readonly upstream: BedrockUpstream };
  /** Where the recorder says what it writes. @default nothing */
  readonly log?: (line: string) => void;
  /**
   * Refuse, as the Claude 5.5 models do, thinking blocks that are not sent back byte for byte to
   * the model and conversation they were made in (claude-thinking-rules.ts). Every other rule of
   * claude-request-rules.ts holds either way.
   * @default true
   */
  readonly strict?: boolean;
  /**
   * Quotas to enforce as Bedrock does (`--model-quota`, and `models.quotas` of the configuration):
   * a request past one is answered ThrottlingException (model-quota-enforcer.ts).
   * @default - none: every request is answered
   */
  readonly quotas?: LocalModelQuotas;
}

const MetadataSchema = z.object({
  goalId: z.string().min(1),
  role: ModelRoleSchema,
  call: z.string().regex(/^\d+$/, "must be a whole number").transform(Number),
});

const MAX_RECORDS = 1_000;

const NO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** A Converse answer's usage (wire JSON), as the port counts it; absent counts read as 0. */
function usageOf(response: JsonObject): TokenUsage {
  const usage = isJsonObject(response.usage) ? response.usage : {};
  const count = (value: JsonValue | undefined) => (typeof value === "number" ? value : 0);
  return {
    inputTokens: count(usage.inputTokens),
    outputTokens: count(usage.outputTokens),
    cacheReadTokens: count(usage.cacheReadInputTokens),
    cacheWriteTokens: count(usage.cacheWriteInputTokens),
  };
}

/** The content blocks of a Converse answer (wire JSON). */
function contentOf(response: JsonObject): JsonValue[] {
  const output = isJsonObject(response.output) ? response.output : {};
  const message = isJsonObject(output.message) ? output.message : {};
  return Array.isArray(message.content) ? message.content : [];
}

/**
 * A local Bedrock runtime that answers Converse from fixture files (DESIGN §6): model id
 * `scripted:<name>` reads `<fixturesDir>/<name>.json` and `requestMetadata` (goalId, role, call)
 * picks the turn. HTTP/2 without TLS, because @aws-sdk/client-bedrock-runtime only speaks HTTP/2.
 * Errors carry `x-amzn-errortype` and the status Bedrock uses, so the SDK raises the same names.
 *
 * Scripted models behave like the Claude 5.5 models: every answer of a model that thinks carries a
 * reasoning block signed for the model, the goal and role, and the request it answered
 * (reasoning-signatures.ts); what those models refuse (a forced tool choice, sampling parameters,
 * an assistant prefill, thinking disabled, and in strict mode a thinking block edited, moved or
 * left out of the latest tool-use turn) is refused with a ValidationException in their words.
 */
export async function startBedrockEndpoint(options: BedrockEndpointOptions): Promise<BedrockEndpoint> {
  const strict = options.strict ?? true;
  const attempts = new Map<string, number>();
  const answered = new AnsweredTurns();
  const records: ModelCallRecord[] = [];
  const exchanges: ExchangeEvent[] = [];
  const logExchange = (entry: ExchangeEvent) => {
    exchanges.push(entry);
    if (exchanges.length > MAX_RECORDS) exchanges.shift();
  };
  const keyOf = (key: CallKey) => JSON.stringify([key.goalId, key.role, key.call]);

  const openAi = options.openAi ?? { baseUrl: DEFAULT_OPENAI_URL };
  const quotas = new ModelQuotaEnforcer(options.quotas ?? {});
  const recorder =
    options.record === undefined
      ? undefined
      : new FixtureRecorder(
          options.fixturesDir,
          options.record.name,
          options.record.upstream.describe,
          options.log,
        );

  const converse = async (
    requestedModelId: string,
    body: string,
  ): Promise<ScriptedAnswer & { key: CallKey }> => {
    const modelId = options.modelOverride ?? requestedModelId;
    let request: JsonValue = null;
    try {
      request = parseJson(body);
    } catch {
      // Answered below, as for any body that is not an object.
    }
    if (!isJsonObject(request))
      throw new AwsApiError("ValidationException", "The Converse body is not a JSON object");
    const metadata = MetadataSchema.safeParse(request.requestMetadata ?? {});
    if (!metadata.success) {
      const why = metadata.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      throw new AwsApiError(
        "ValidationException",
        `A local model needs requestMetadata {goalId, role, call}: ${why}`,
      );
    }
    const { goalId, role, call } = metadata.data;
    // A request past a quota never reached the model: refused before it counts as an attempt.
    const reservation = quotas.admit(requestedModelId, reservedTokensOfConverse(request));
    logExchange({ event: "received", goalId, role, call });
    const attempt = (attempts.get(keyOf({ goalId, role, call })) ?? 0) + 1;
    attempts.set(keyOf({ goalId, role, call }), attempt);
    const record = (outcome: { response: JsonObject } | { error: string; message: string }) => {
      records.push({ modelId, goalId, role, call, attempt, request, ...outcome });
      if (records.length > MAX_RECORDS) records.shift();
    };
    const conversation = { modelId, goalId, role };
    const toolUseIdOf = (index: number) => stableToolUseId({ goalId, role, call }, index);
    try {
      let answer: ScriptedAnswer;
      if (recorder !== undefined && options.record !== undefined) {
        // Recording: the real service checks the request; it is sent as the function made it.
        try {
          answer = { response: await options.record.upstream.converse(modelId, body), latencyMs: 0 };
        } catch (error) {
          if (error instanceof AwsApiError)
            await recorder.failed(modelId, { goalId, role, call }, error.code, error.message);
          throw error;
        }
        await recorder.answered(modelId, { goalId, role, call }, answer.response);
      } else {
        // What Bedrock refuses in any model's cache points (their count, ttl, order).
        const cacheProblem = cachePointProblem(request, modelId);
        if (cacheProblem !== undefined) throw new AwsApiError("ValidationException", cacheProblem);
        const openAiModel = openAiModelOf(modelId);
        if (openAiModel !== undefined) {
          const problem = strict ? openModelReasoningProblem(request, modelId) : undefined;
          if (problem !== undefined) throw new AwsApiError("ValidationException", problem);
          answer = {
            response: await converseWithOpenAi(openAi, openAiModel, request, toolUseIdOf),
            latencyMs: 0,
          };
        } else {
          const recordedRole = (reasoning: JsonObject) =>
            recordedReasoningRole(options.fixturesDir, modelId, reasoning);
          const problem =
            claudeRequestProblem(request) ??
            (strict ? reasoningProblem(request, conversation, answered, recordedRole) : undefined);
          if (problem !== undefined) throw new AwsApiError("ValidationException", problem);
          const messages = Array.isArray(request.messages) ? request.messages : [];
          answer = scriptedConverse({
            fixturesDir: options.fixturesDir,
            modelId,
            goalId,
            role,
            call,
            attempt,
            body,
            request,
            binding: { modelId, goalId, role, prefix: prefixHash(request, messages.length) },
          });
        }
      }
      answered.remember(request, conversation, contentOf(answer.response));
      record({ response: answer.response });
      quotas.settle(reservation, usageOf(answer.response));
      return { ...answer, key: { goalId, role, call } };
    } catch (error) {
      // A request that failed used nothing of the quota: its reservation comes back.
      quotas.settle(reservation, NO_USAGE);
      record({
        error: error instanceof AwsApiError ? error.code : "InternalServerException",
        message: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  };

  const handle = async (req: Http2ServerRequest, res: Http2ServerResponse) => {
    const send = (status: number, body: JsonValue, errorType?: string) => {
      res.writeHead(status, {
        "content-type": "application/json",
        "x-amzn-requestid": randomUUID(),
        ...(errorType === undefined ? {} : { "x-amzn-errortype": errorType }),
      });
      res.end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(Buffer.from(chunk));
      const modelId = /^\/model\/([^/]+)\/converse$/.exec(req.url.split("?")[0] ?? "")?.[1];
      if (req.method !== "POST" || modelId === undefined) {
        const what = `${req.method} ${req.url}`;
        throw new AwsApiError(
          "UnknownOperationException",
          `This endpoint serves POST /model/{modelId}/converse only, not ${what}`,
          404,
        );
      }
      const { response, latencyMs, key } = await converse(
        decodeURIComponent(modelId),
        Buffer.concat(chunks).toString("utf8"),
      );
      await delay(latencyMs);
      logExchange({ event: "answered", ...key });
      send(200, response);
    } catch (error) {
      if (error instanceof ScriptedBedrockError) await delay(error.latencyMs);
      if (error instanceof AwsApiError) return send(error.statusCode, { message: error.message }, error.code);
      send(
        500,
        { message: error instanceof Error ? error.message : String(error) },
        "InternalServerException",
      );
    }
  };

  const server = http2.createServer();
  const sessions = new Set<ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  server.on("request", (req: Http2ServerRequest, res: Http2ServerResponse) => void handle(req, res));
  const running = await listen(server, options.port);
  return {
    url: running.url,
    exchanges: () => [...exchanges],
    callCount: (key) => attempts.get(keyOf(key)) ?? 0,
    calls: () => [...records],
    quotaRefusals: () => quotas.throttled,
    close: () => {
      // The SDK keeps its HTTP/2 sessions open; close() would wait for them.
      for (const session of sessions) session.destroy();
      return running.close();
    },
  };
}
