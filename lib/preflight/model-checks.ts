import { costOf } from "../../lambdas/core/models/model-prices";
import { parseModelId } from "../config/bedrock-model-catalog";
import type { GoalLoopsConfig } from "../config/goal-loops-config";
import { ConfigError } from "../config/parse-settings";
import { resolveModels } from "../config/resolve-models";
import { type AccountReader, describeError, type FoundationModelInfo } from "./account-reader";
import { blocker, type CheckResult, ok, warn } from "./checklist";

/** Each model the stack may call, once, under the first field that names it (`models.heavy` …). */
export interface ConfiguredModel {
  readonly field: string;
  readonly modelId: string;
}

/**
 * The models the configuration yields in `region`, as synth resolves them (defaults picked, foundation
 * model ids turned into the region's profiles), or the ConfigError synth would stop on.
 */
export function configuredModels(
  config: GoalLoopsConfig,
  region: string,
): { readonly models: readonly ConfiguredModel[] } | { readonly problem: string } {
  try {
    const resolved = resolveModels(config.models, { region }, "the configuration");
    const fields: ConfiguredModel[] = [
      { field: "models.heavy", modelId: resolved.heavy },
      { field: "models.fast", modelId: resolved.fast },
      ...resolved.allowed.map((modelId, index) => ({ field: `models.allowed.${index}`, modelId })),
    ];
    const seen = new Set<string>();
    return {
      models: fields.filter(({ modelId }) => {
        if (seen.has(modelId)) return false;
        seen.add(modelId);
        return true;
      }),
    };
  } catch (error) {
    if (error instanceof ConfigError) return { problem: error.message };
    throw error;
  }
}

/**
 * One model: its inference profile exists in the region (Bedrock's `GetInferenceProfile`), and its
 * foundation model's lifecycle (`GetFoundationModel` → `modelLifecycle`) lets a new deployment use
 * it: a Legacy model is refused to new customers and stops at its end of life, so it is a blocker.
 */
export async function checkModel(
  account: AccountReader,
  region: string,
  { field, modelId }: ConfiguredModel,
  now: Date,
): Promise<CheckResult> {
  const check = `${field} ${modelId}`;
  try {
    const isProfile =
      parseModelId(modelId).geography !== undefined || modelId.includes(":inference-profile/");
    let foundationModelId = parseModelId(modelId).foundationModelId;
    let profileNote = "";
    if (isProfile) {
      const profile = await account.inferenceProfile(modelId);
      if (profile === undefined) {
        return blocker(check, `Bedrock has no inference profile '${modelId}' in ${region}`);
      }
      if (profile.status !== "ACTIVE") {
        return blocker(check, `its inference profile is ${profile.status}, not ACTIVE`);
      }
      foundationModelId = foundationModelOf(profile.modelArns, region) ?? foundationModelId;
      profileNote = "inference profile ACTIVE; ";
    }
    const model = await account.foundationModel(foundationModelId);
    if (model === undefined) {
      const why = `Bedrock lists no foundation model '${foundationModelId}' in ${region}`;
      return isProfile
        ? warn(check, `${profileNote}lifecycle unknown: ${why}`)
        : blocker(check, `${why} (end of life, or not offered in this region)`);
    }
    return lifecycleResult(check, profileNote, model, field, now);
  } catch (error) {
    return blocker(check, `cannot read it: ${describeError(error)}`);
  }
}

function lifecycleResult(
  check: string,
  profileNote: string,
  model: FoundationModelInfo,
  field: string,
  now: Date,
): CheckResult {
  const name = model.name ?? model.modelId;
  const endOfLife = model.endOfLifeTime;
  const eol = endOfLife === undefined ? "" : `, end of life ${day(endOfLife)}`;
  const move = `set ${field.replace(/\.\d+$/, "")} to a current model (or leave it unset for the default)`;
  if (endOfLife !== undefined && endOfLife.getTime() <= now.getTime()) {
    return blocker(check, `${name} reached its end of life on ${day(endOfLife)}: ${move}`);
  }
  if (model.lifecycleStatus === "LEGACY") {
    const since = model.legacyTime === undefined ? "" : ` since ${day(model.legacyTime)}`;
    return blocker(
      check,
      `${profileNote}${name} is LEGACY${since}${eol}: new customers cannot use it and it stops answering at its end of life; ${move}`,
    );
  }
  if (model.lifecycleStatus !== "ACTIVE") {
    return blocker(check, `${profileNote}${name} is ${model.lifecycleStatus}, not ACTIVE: ${move}`);
  }
  return endOfLife === undefined
    ? ok(check, `${profileNote}${name} ACTIVE`)
    : warn(check, `${profileNote}${name} ACTIVE${eol} announced: plan the move`);
}

/** The foundation model id a profile routes to in `region` (else in any region). */
function foundationModelOf(modelArns: readonly string[], region: string): string | undefined {
  const ids = modelArns.map((arn) => ({ region: arn.split(":")[3], id: arn.split("foundation-model/")[1] }));
  return (ids.find((entry) => entry.region === region) ?? ids[0])?.id;
}

/** What one minimal Converse call to a model did and cost (`--invoke`). */
export async function invokeModel(
  account: AccountReader,
  { field, modelId }: ConfiguredModel,
): Promise<CheckResult> {
  const check = `invoke ${field}`;
  try {
    const usage = await account.converse(modelId, "Reply with the single word: ready", 64);
    let cost: string;
    try {
      cost = `$${costOf(modelId, usage).toFixed(6)}`;
    } catch {
      cost = "cost unknown (no price for it in lambdas/core/models/model-prices.json)";
    }
    const latency = usage.latencyMs === undefined ? "" : ` in ${usage.latencyMs} ms`;
    return ok(
      check,
      `${modelId} answered${latency} (${usage.stopReason ?? "no stop reason"}): ${usage.inputTokens} in, ${usage.outputTokens} out tokens, ${cost}`,
    );
  } catch (error) {
    return blocker(check, `${modelId} refused the call: ${describeError(error)}${hint(error)}`);
  }
}

/** What an AccessDeniedException on a first call usually means. */
function hint(error: unknown): string {
  if (!(error instanceof Error) || error.name !== "AccessDeniedException") return "";
  return " (a model's first call in an account subscribes it through AWS Marketplace: make it once as an administrator; Anthropic models also need the one-time use-case form)";
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}
