import { ValidationError } from "../core/goal/errors";
import type { JsonValue } from "../core/goal/goal-change";
import { clip } from "../core/goal/text";
import { parseOrThrow } from "../core/goal/validation";
import type { ToolRisk } from "../core/ports/tool-runner";
import * as z from "../core/zod";
import type { JsonObject } from "./built-in-tool";
import { type ToolInputCheck, toolInputCheck } from "./json-schema-input";
import { ToolCallError } from "./tool-call-error";
import type { RegisteredTool } from "./tool-registry";

/** One user Lambda tool as the CDK construct describes it to the acting functions (`USER_TOOLS`). */
export const LambdaToolEntrySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    name: z.string().check(z.minLength(1)),
    description: z.string().check(z.minLength(1)),
    inputSchema: z.record(z.string(), z.json()),
    risk: z.enum(["read", "reversible", "irreversible"]),
    functionArn: z.string().check(z.minLength(1)),
  }),
);
export type LambdaToolEntry = z.infer<typeof LambdaToolEntrySchema>;
export const LambdaToolManifestSchema = /* @__PURE__ */ z.lazySchema(() => z.array(LambdaToolEntrySchema));

/** What a Lambda tool answered: its JSON payload, or the error Lambda reports for a throw or a timeout. */
export interface LambdaInvocation {
  readonly payload: unknown;
  /** Set when the function threw or timed out (Lambda's `FunctionError`). */
  readonly functionError?: string;
}

/** The port a Lambda tool is invoked through (the AWS SDK in Lambda, the local endpoint locally). */
export interface LambdaInvoker {
  invoke(functionArn: string, event: JsonObject): Promise<LambdaInvocation>;
}

/** The error a tool function answers with (`{error: {name, message, fatal?}}`): the model reads it. */
const ToolAnswerErrorSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    error: z.object({
      name: z.string().check(z.minLength(1), z.maxLength(100)),
      message: z.string(),
      fatal: z.optional(z.boolean()),
    }),
  }),
);

/** Characters of a function's error message the model gets. */
const ERROR_MESSAGE_CHARS = 2000;

/**
 * A user Lambda tool (DESIGN §6): the function gets `{tool, input, goalId, runId, toolUseId,
 * idempotencyKey, tenantId}` and answers any JSON (success) or `{error: {name, message, fatal?}}`.
 * A throw or a timeout is a tool error too (`LambdaToolFailed`); none of them is a crash of the
 * step. A `fatal` error is named `Fatal<name>`, which makes the goal ask a human before going on,
 * like an AccessDenied. The input is checked against the tool's JSON Schema before the call.
 */
export function lambdaTool(entry: LambdaToolEntry, invoker: LambdaInvoker): RegisteredTool {
  let checkInput: ToolInputCheck | undefined;
  return {
    name: entry.name,
    spec: { name: entry.name, description: entry.description, inputSchema: entry.inputSchema },
    prepare(input) {
      checkInput ??= toolInputCheck(entry.inputSchema, entry.name);
      const parsed = checkInput(input);
      return {
        risk: entry.risk as ToolRisk,
        refuse: () => undefined,
        async execute(env) {
          const { context, call } = env;
          const event: JsonObject = {
            tool: entry.name,
            input: parsed,
            goalId: context.goalId,
            runId: context.runId,
            toolUseId: call.toolUseId,
            idempotencyKey: context.idempotencyKey,
            tenantId: context.tenantId,
          };
          const answer = await invoker.invoke(entry.functionArn, event);
          if (answer.functionError !== undefined) throw functionFailed(entry.name, answer);
          const declared = ToolAnswerErrorSchema.safeParse(answer.payload);
          if (declared.success) {
            const { name, message, fatal } = declared.data.error;
            throw new ToolCallError(fatal ? `Fatal${name}` : name, clip(message, ERROR_MESSAGE_CHARS));
          }
          const value = isJsonObject(answer.payload) ? answer.payload : { result: toJson(answer.payload) };
          return { value };
        },
      };
    },
  };
}

function functionFailed(tool: string, answer: LambdaInvocation): ToolCallError {
  const payload = isJsonObject(answer.payload) ? answer.payload : {};
  const type = typeof payload.errorType === "string" ? payload.errorType : answer.functionError;
  const message = typeof payload.errorMessage === "string" ? payload.errorMessage : "no message";
  return new ToolCallError(
    "LambdaToolFailed",
    clip(`Tool '${tool}' failed: ${type}: ${message}`, ERROR_MESSAGE_CHARS),
  );
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toJson(value: unknown): JsonValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}

/** The manifest in `USER_TOOLS`, or a ValidationError naming what is wrong with it. */
export function parseLambdaToolManifest(text: string | undefined): LambdaToolEntry[] {
  if (text === undefined || text.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError("USER_TOOLS is not JSON", [{ path: "USER_TOOLS", message: "not JSON" }]);
  }
  return parseOrThrow(LambdaToolManifestSchema, value, "USER_TOOLS");
}
