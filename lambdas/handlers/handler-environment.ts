import { ValidationError } from "../core/goal/errors";
import { type ThinkingSettings, ThinkingSettingsSchema } from "../core/goal/thinking-settings";
import { parseOrThrow } from "../core/goal/validation";
import type { ModelTiers } from "../core/models/model-tiers";
import type * as z from "../core/zod";

/** The deployment's `models.thinking` as JSON, set by the constructs that run model calls. */
export const MODEL_THINKING_ENV = "MODEL_THINKING";

/** A variable the CDK construct always sets; missing means a broken deployment, so say which. */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value.trim() === "") {
    throw new ValidationError(`Environment variable ${name} is not set`, [
      { path: name, message: "required" },
    ]);
  }
  return value;
}

/** A positive integer variable, or `fallback` when unset. */
export function positiveIntEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value.trim() === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new ValidationError(`Environment variable ${name} must be a positive integer, not '${value}'`, [
      { path: name, message: "must be a positive integer" },
    ]);
  }
  return parsed;
}

/** A comma-separated list variable (empty entries dropped). */
export function listEnv(name: string): string[] {
  return splitList(process.env[name] ?? "");
}

/** The entries of a comma-separated list, trimmed, empty ones dropped. */
export function splitList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * The deployment's heavy and fast models (HEAVY_MODEL_ID, FAST_MODEL_ID, set by the pattern
 * constructs) and its thinking settings per role (MODEL_THINKING, JSON; unset: every default).
 */
export function modelTiersFromEnv(): ModelTiers {
  const thinking = thinkingFromEnv();
  return {
    heavyModelId: requiredEnv("HEAVY_MODEL_ID"),
    fastModelId: requiredEnv("FAST_MODEL_ID"),
    ...(thinking === undefined ? {} : { thinking }),
  };
}

function thinkingFromEnv(): ThinkingSettings | undefined {
  return parseModelThinking(process.env[MODEL_THINKING_ENV]);
}

/** MODEL_THINKING, checked: a bad value fails at init, naming the variable and the field. */
export function parseModelThinking(value: string | undefined): ThinkingSettings | undefined {
  return parseJsonEnv(MODEL_THINKING_ENV, value, ThinkingSettingsSchema, "the JSON of models.thinking");
}

/**
 * A variable that holds JSON the construct wrote from the configuration, checked against its
 * schema: a bad value fails at init, naming the variable and the field. Unset or blank: undefined.
 */
export function parseJsonEnv<T>(
  name: string,
  value: string | undefined,
  schema: z.core.$ZodType<T>,
  what: string,
): T | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (error) {
    throw new ValidationError(
      `Environment variable ${name} is not JSON`,
      [{ path: name, message: `must be ${what}` }],
      {
        cause: error,
      },
    );
  }
  return parseOrThrow(schema, json, `environment variable ${name}`);
}
