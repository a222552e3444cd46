import { ValidationError } from "../core/goal/errors";
import type { ModelTiers } from "../core/models/model-tiers";

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

/** The deployment's heavy and fast models (HEAVY_MODEL_ID, FAST_MODEL_ID, set by the pattern constructs). */
export function modelTiersFromEnv(): ModelTiers {
  return { heavyModelId: requiredEnv("HEAVY_MODEL_ID"), fastModelId: requiredEnv("FAST_MODEL_ID") };
}
