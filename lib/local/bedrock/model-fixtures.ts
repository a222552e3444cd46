import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { MODEL_ROLES, type ModelRole, ModelRoleSchema } from "../../../lambdas/core/models/model-roles";
import { StopReasonSchema } from "../../../lambdas/core/ports/model-client";
import { FixtureFileError } from "../shared/errors";

/** Bedrock runtime errors a fixture turn may raise, with the HTTP status Bedrock answers them with. */
export const BEDROCK_ERROR_STATUS = {
  ThrottlingException: 429,
  ValidationException: 400,
  AccessDeniedException: 403,
  ResourceNotFoundException: 404,
  ServiceUnavailableException: 503,
  InternalServerException: 500,
  ModelTimeoutException: 408,
  ModelNotReadyException: 429,
  ModelErrorException: 424,
  ServiceQuotaExceededException: 400,
} as const;
export type BedrockErrorName = keyof typeof BEDROCK_ERROR_STATUS;
const BEDROCK_ERROR_NAMES = Object.keys(BEDROCK_ERROR_STATUS) as [BedrockErrorName, ...BedrockErrorName[]];

const UsageSchema = z.strictObject({
  inputTokens: z.number().int().min(0).optional(),
  outputTokens: z.number().int().min(0).optional(),
  cacheReadInputTokens: z.number().int().min(0).optional(),
  cacheWriteInputTokens: z.number().int().min(0).optional(),
});

/** How long the local endpoint waits before it answers a turn (DESIGN §6 "Model fixtures"). */
const LatencySchema = z.number().int().min(0).max(300_000).optional();

const ToolUseSchema = z.strictObject({
  name: z.string().min(1),
  input: z.json().default({}),
  /** @default - derived from goal, role, call and position, so a replay sends the same id */
  toolUseId: z.string().min(1).optional(),
});

/**
 * A scripted assistant turn: text, one or more tool calls (or both), optional stop reason and usage.
 * A model that thinks (the default) answers with a reasoning block first: `reasoning` is its text
 * (generated from the turn and the request's effort when absent); `redacted` makes it an encrypted
 * `redactedContent` block instead, as the service sends when its safety systems flag the thinking.
 */
export const ResponseTurnSchema = z
  .strictObject({
    text: z.string().optional(),
    toolUse: z.union([ToolUseSchema, z.array(ToolUseSchema).min(1)]).optional(),
    stopReason: z.optional(StopReasonSchema),
    usage: UsageSchema.optional(),
    latencyMs: LatencySchema,
    reasoning: z.string().optional(),
    redacted: z.boolean().optional(),
    /**
     * A recorded block's signature, as the service sent it (`--record`): the block is served with
     * it, verbatim, and accepted back only byte for byte. Empty `reasoning` is the model's own
     * (Claude 5.5 omits its thinking's text unless asked for it).
     */
    signature: z.string().min(1).optional(),
    /** A recorded redacted block's bytes, base64, as the service sent them (`--record`; with `redacted`). */
    redactedContent: z.base64().min(1).optional(),
  })
  .refine((turn) => turn.text !== undefined || turn.toolUse !== undefined, {
    message: "a turn needs text, toolUse or error",
  })
  .refine((turn) => turn.reasoning !== "" || turn.signature !== undefined, {
    message: "reasoning is empty: give its text, or leave it out to have one generated",
    path: ["reasoning"],
  })
  .refine((turn) => turn.signature === undefined || turn.reasoning !== undefined, {
    message: "a signature signs a reasoning text: give reasoning too",
    path: ["signature"],
  })
  .refine((turn) => turn.redactedContent === undefined || turn.redacted === true, {
    message: 'redactedContent holds a redacted block\'s bytes: set "redacted": true too',
    path: ["redactedContent"],
  });
export type ResponseTurn = z.infer<typeof ResponseTurnSchema>;

/** A scripted failure: the attempt gets this Bedrock error instead of a turn. */
export const ErrorTurnSchema = z.strictObject({
  error: z.enum(BEDROCK_ERROR_NAMES),
  message: z.string().optional(),
  latencyMs: LatencySchema,
});
export type ErrorTurn = z.infer<typeof ErrorTurnSchema>;

/**
 * The file: a list of turns per role, and `thinking: false` for a model that does not think
 * (Claude Haiku 4.5 without a budget): its answers carry no reasoning block.
 */
/**
 * Where a recorded fixture came from (`npm start -- --record`): the model that really answered and
 * when. Its turns are served exactly as recorded: reasoning only where the model sent some, with
 * the model's signatures.
 */
export const RecordedFromSchema = z.strictObject({
  model: z.string().min(1),
  recordedAt: z.iso.datetime(),
  /** The region (or endpoint) of the Bedrock Runtime that answered. */
  upstream: z.string().min(1).optional(),
});
export type RecordedFrom = z.infer<typeof RecordedFromSchema>;

const FixtureFileSchema = z
  .object({ thinking: z.boolean().optional(), recordedFrom: RecordedFromSchema.optional() })
  .catchall(z.unknown())
  .transform(({ thinking, recordedFrom, ...roles }, context) => {
    const parsed = z.partialRecord(ModelRoleSchema, z.array(z.unknown())).safeParse(roles);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) context.addIssue({ ...issue, code: "custom" });
      return z.NEVER;
    }
    return {
      thinking: thinking ?? true,
      roles: parsed.data,
      ...(recordedFrom === undefined ? {} : { recordedFrom }),
    };
  });

/**
 * One call's script: the errors its first attempts get, then the response (absent when the role's
 * list ends in errors).
 */
export interface ScriptedCall {
  readonly errors: readonly ErrorTurn[];
  readonly response?: ResponseTurn;
}

export interface ModelFixture {
  /** Whether the scripted model thinks: every answer then carries a reasoning block. */
  readonly thinking: boolean;
  /** Set for a recorded run: its turns are served as recorded, nothing generated. */
  readonly recordedFrom?: RecordedFrom;
  readonly roles: Partial<Record<ModelRole, readonly ScriptedCall[]>>;
}

/** `scripted:<name>` → `<name>`, or undefined for any other model id. */
export function fixtureNameOf(modelId: string): string | undefined {
  const match = /^scripted:([A-Za-z0-9._-]+)$/.exec(modelId);
  return match?.[1];
}

export function fixtureFileOf(fixturesDir: string, name: string): string {
  return path.join(fixturesDir, `${name}.json`);
}

/** The fixture names a folder offers (its `*.json` files). */
export function availableFixtures(fixturesDir: string): string[] {
  if (!existsSync(fixturesDir)) return [];
  return readdirSync(fixturesDir)
    .filter((file) => file.endsWith(".json"))
    .map((file) => file.slice(0, -".json".length))
    .sort();
}

/**
 * The text of a fixture file; a FixtureFileError naming the file when it cannot be read, with the
 * fixtures its folder does have when there is no such file (a misspelt `scripted:<name>`).
 */
export function readFixtureText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if (isMissingFile(error)) {
      const available = availableFixtures(path.dirname(file)).join(", ") || "none";
      throw new FixtureFileError(file, `Fixture file ${file} does not exist (available: ${available})`, {
        cause: error,
      });
    }
    throw new FixtureFileError(file, `Fixture file ${file} cannot be read: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

function isMissingFile(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Checks the text of a fixture file (DESIGN §6): `{"<role>": [turn, …]}`, with `"thinking": false`
 * for a model that does not think. Error turns are
 * attempt-level: they are served to the successive attempts of the call whose response follows
 * them, so `[{"error": "ThrottlingException"}, {"text": "a"}]` throttles call 0 once, then
 * answers it. Without error turns, call n gets turn n.
 */
export function parseModelFixture(file: string, text: string): ModelFixture {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw unreadable(file, error);
  }
  const parsed = FixtureFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw invalid(file, parsed.error, [], `roles are ${MODEL_ROLES.join(", ")}, each a list of turns`);
  }
  const roles: Partial<Record<ModelRole, ScriptedCall[]>> = {};
  for (const [role, turns] of Object.entries(parsed.data.roles)) {
    const calls: ScriptedCall[] = [];
    let errors: ErrorTurn[] = [];
    turns.forEach((turn, index) => {
      const isError = typeof turn === "object" && turn !== null && "error" in turn;
      const result = (isError ? ErrorTurnSchema : ResponseTurnSchema).safeParse(turn);
      if (!result.success) throw invalid(file, result.error, [role, index]);
      if ("redacted" in result.data && result.data.redacted && result.data.reasoning !== undefined) {
        throw new FixtureFileError(
          file,
          `Fixture file ${file} is invalid: ${role}.${index}: a redacted turn has no reasoning text (the service encrypts it)`,
        );
      }
      if ("error" in result.data) errors.push(result.data);
      else {
        calls.push({ errors, response: result.data });
        errors = [];
      }
    });
    if (errors.length > 0) calls.push({ errors });
    roles[ModelRoleSchema.parse(role)] = calls;
  }
  if (!parsed.data.thinking) {
    const scripted = Object.entries(roles).find(([, calls]) =>
      calls?.some((call) => call.response?.reasoning !== undefined || call.response?.redacted),
    );
    if (scripted) {
      throw new FixtureFileError(
        file,
        `Fixture file ${file} is invalid: ${scripted[0]}: "thinking": false scripts a model that does not think, so no turn has reasoning or redacted`,
      );
    }
  }
  const { recordedFrom } = parsed.data;
  return { thinking: parsed.data.thinking, roles, ...(recordedFrom === undefined ? {} : { recordedFrom }) };
}

function unreadable(file: string, error: unknown): FixtureFileError {
  return new FixtureFileError(file, `Fixture file ${file} cannot be read as JSON: ${messageOf(error)}`, {
    cause: error,
  });
}

function invalid(file: string, error: z.ZodError, prefix: PropertyKey[], hint?: string): FixtureFileError {
  const details = error.issues.flatMap((issue) => explain(issue, prefix)).join("; ");
  return new FixtureFileError(file, `Fixture file ${file} is invalid: ${details}${hint ? ` (${hint})` : ""}`);
}

/**
 * `path: message` lines for one issue. A union (`toolUse`: one call or a list) reports the issues of
 * its closest branch rather than zod's bare "Invalid input".
 */
function explain(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): string[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const closest = issue.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
    return closest.flatMap((inner) => explain(inner, path));
  }
  return [`${path.map(String).join(".") || "(root)"}: ${issue.message}`];
}
