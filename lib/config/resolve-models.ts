import { UnknownModelPriceError } from "../../lambdas/core/goal/errors";
import type { ThinkingSettings } from "../../lambdas/core/goal/thinking-settings";
import { priceOf } from "../../lambdas/core/models/model-prices";
import { MODEL_ROLES } from "../../lambdas/core/models/model-roles";
import { thinkingProblem, thinkingSettingFor } from "../../lambdas/core/models/model-thinking";
import { ROLE_TIERS } from "../../lambdas/core/models/model-tiers";
import {
  DEFAULT_MODEL_CANDIDATES,
  geographiesOf,
  type KnownModel,
  knownModel,
  type ProfileGeography,
  parseModelId,
  profileId,
  profileList,
} from "./bedrock-model-catalog";
import type { ModelsConfig } from "./goal-loops-config";
import { ConfigError } from "./parse-settings";

/** The models a stack deploys, as ids Bedrock takes, with what synth should tell about them. */
export interface ResolvedModels {
  readonly heavy: string;
  readonly fast: string;
  /** heavy and fast included, each once. */
  readonly allowed: readonly string[];
  /** Which default each unset tier got, and why (synth prints them). */
  readonly notes: readonly string[];
  /** Configured models Bedrock has marked Legacy. */
  readonly warnings: readonly string[];
  /** `models.thinking`, checked against the model of each role's tier. */
  readonly thinking?: ThinkingSettings;
}

/** Where the models will be called from: the stack's region, unless it is only known at deploy. */
export interface ModelRegion {
  /** undefined for an environment-agnostic stack (its region is a token). */
  readonly region: string | undefined;
}

/**
 * Turns `models` into the ids the steps call, for a stack in `region`:
 * - a tier left unset gets the first default candidate with a profile where data may go: the
 *   `global.` profile (list price), or with `dataResidency` the region's geographic profile;
 * - a known model given by its foundation model id gets that same profile (it has no other way in);
 * - a profile the region cannot call, a `global.` profile under `dataResidency`, a model with no
 *   profile for the geography, or a model without a price fails, naming the field.
 * `where` prefixes every error (the construct or file the settings came from).
 */
export function resolveModels(models: ModelsConfig, { region }: ModelRegion, where: string): ResolvedModels {
  const target = targetGeographies(models.dataResidency === true, region, where);
  const notes: string[] = [];
  const warnings: string[] = [];
  const resolve = (field: string, modelId: string): string => {
    const resolved = resolveConfigured(field, modelId, target, region, where);
    const known = knownModel(parseModelId(resolved).foundationModelId);
    if (known?.lifecycle.status === "legacy") {
      const { since, endOfLife } = known.lifecycle;
      warnings.push(
        `${field}: ${known.name} ('${resolved}') is Legacy on Bedrock since ${since}: new customers cannot use it, ` +
          `and it stops answering on ${endOfLife}. Move to a current model (leave ${field} unset for the default).`,
      );
    }
    assertPriced(field, resolved, where);
    return resolved;
  };
  const tier = (name: "heavy" | "fast"): string => {
    const configured = models[name];
    if (configured !== undefined) return resolve(`models.${name}`, configured);
    const { modelId, note } = defaultFor(name, target, region, where);
    notes.push(note);
    return resolve(`models.${name}`, modelId);
  };
  const heavy = tier("heavy");
  const fast = tier("fast");
  const allowed =
    models.allowed === undefined
      ? [heavy, fast]
      : models.allowed.map((modelId, index) => resolve(`models.allowed.${index}`, modelId));
  for (const [name, modelId] of [
    ["heavy", heavy],
    ["fast", fast],
  ] as const) {
    if (!allowed.includes(modelId)) {
      throw new ConfigError(
        `${where}: models.allowed must include the ${name} model '${modelId}'` +
          (models[name] === undefined ? ` (the default for models.${name}; or set models.${name})` : ""),
      );
    }
  }
  const { thinking } = models;
  if (thinking !== undefined) assertThinkingTaken(thinking, { heavy, fast }, where);
  return {
    heavy,
    fast,
    allowed: [...new Set(allowed)],
    notes,
    warnings,
    ...(thinking === undefined ? {} : { thinking }),
  };
}

/**
 * Refuses a role's thinking setting the model of its tier answers 400 to (`disabled` on Claude
 * Sonnet 5.5, a manual budget where only adaptive thinking is accepted, any setting for a model
 * whose thinking rules goal-loops does not know), naming `models.thinking.<role>.<field>`. Bedrock
 * would only say so at the goal's first call of the role. A GoalSpec that sends a role to another
 * model is checked against that model when the goal is posted.
 */
export function assertThinkingTaken(
  thinking: ThinkingSettings,
  tiers: { readonly heavy: string; readonly fast: string },
  where: string,
): void {
  const problems = MODEL_ROLES.flatMap((role) => {
    if (thinking[role] === undefined) return [];
    const modelId = ROLE_TIERS[role] === "heavy" ? tiers.heavy : tiers.fast;
    const problem = thinkingProblem(modelId, thinkingSettingFor(role, undefined, thinking), true);
    return problem ? [`models.thinking.${role}.${problem.field}: ${problem.message}`] : [];
  });
  if (problems.length > 0) throw new ConfigError(`${where}: ${problems.join("; ")}`);
}

/** Where the stack's requests may go: `global`, or the region's geographies (narrowest first). */
interface TargetGeographies {
  readonly dataResidency: boolean;
  readonly geographies: readonly ProfileGeography[];
}

function targetGeographies(
  dataResidency: boolean,
  region: string | undefined,
  where: string,
): TargetGeographies {
  if (!dataResidency) return { dataResidency, geographies: ["global"] };
  if (region === undefined) {
    throw new ConfigError(
      `${where}: models.dataResidency needs the stack's region at synth, to pick its geographic inference profiles, ` +
        "but the stack is environment-agnostic: give it an env with a region " +
        "(cdk synth with AWS credentials, so bin/app.ts pins it to CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION; or env: { region } in your own app)",
    );
  }
  const geographies = geographiesOf(region);
  if (geographies === undefined) {
    throw new ConfigError(
      `${where}: models.dataResidency: no geographic inference profile is known for region ${region}; ` +
        "set models.heavy and models.fast to models you can call there, or turn dataResidency off",
    );
  }
  return { dataResidency, geographies };
}

function describeRegion(region: string | undefined): string {
  if (region === undefined) return "an environment-agnostic stack";
  const geographies = geographiesOf(region);
  return geographies === undefined
    ? region
    : `${region} (${geographies.map((geography) => `${geography}.`).join(" or ")})`;
}

function profileFor(model: KnownModel, target: TargetGeographies): ProfileGeography | undefined {
  return target.geographies.find((geography) => model.profiles.includes(geography));
}

function defaultFor(
  tier: "heavy" | "fast",
  target: TargetGeographies,
  region: string | undefined,
  where: string,
): { modelId: string; note: string } {
  const candidates: readonly KnownModel[] = DEFAULT_MODEL_CANDIDATES[tier];
  const skipped: string[] = [];
  for (const model of candidates) {
    const geography = profileFor(model, target);
    if (geography === undefined) {
      skipped.push(`${model.name} has no ${wanted(target)} profile (its profiles: ${profileList(model)})`);
      continue;
    }
    const modelId = profileId(geography, model.foundationModelId);
    const why = target.dataResidency
      ? `the ${geography}. profile keeps requests in the geography of ${describeRegion(region)} (dataResidency; geographic profiles cost 10 % more than global)`
      : "the global. profile, at list price; set models.dataResidency to keep requests in the region's geography";
    const passedOver = skipped.length > 0 ? `; ${skipped.join("; ")}` : "";
    return { modelId, note: `models.${tier} defaults to ${model.name} ('${modelId}'): ${why}${passedOver}` };
  }
  throw new ConfigError(
    `${where}: models.${tier}: no default model has a ${wanted(target)} profile for ${describeRegion(region)} ` +
      `(${skipped.join("; ")}); set models.${tier} to a model you can call there`,
  );
}

function wanted(target: TargetGeographies): string {
  return target.geographies.map((geography) => `${geography}.`).join(" or ");
}

function resolveConfigured(
  field: string,
  modelId: string,
  target: TargetGeographies,
  region: string | undefined,
  where: string,
): string {
  const { geography, foundationModelId } = parseModelId(modelId);
  const known = knownModel(foundationModelId);
  const fail = (problem: string) => new ConfigError(`${where}: ${field} '${modelId}' ${problem}`);
  if (geography === undefined) {
    // An unknown foundation model is called on demand in the stack's own region: nothing to pick.
    if (known === undefined) return modelId;
    const picked = profileFor(known, target);
    if (picked === undefined) {
      throw fail(
        `(${known.name}) has no ${wanted(target)} inference profile for ${describeRegion(region)}; ` +
          `its profiles: ${profileList(known)}`,
      );
    }
    return profileId(picked, foundationModelId);
  }
  if (known !== undefined && !known.profiles.includes(geography)) {
    throw fail(`is not an inference profile of ${known.name}; its profiles: ${profileList(known)}`);
  }
  if (geography === "global") {
    if (target.dataResidency) {
      throw fail(
        `may send requests to any commercial region, which models.dataResidency rules out; ` +
          `use the foundation model id '${foundationModelId}' or its ${wanted(target)} profile`,
      );
    }
    return modelId;
  }
  const callable = region === undefined ? undefined : geographiesOf(region);
  if (callable !== undefined && !callable.includes(geography)) {
    throw fail(
      `is a ${geography}. inference profile, which cannot be called from ${describeRegion(region)}` +
        (known === undefined ? "" : `; ${known.name}'s profiles: ${profileList(known)}`),
    );
  }
  return modelId;
}

/** A model without a price would fail every call (the step refuses before paying): fail synth instead. */
function assertPriced(field: string, modelId: string, where: string): void {
  try {
    priceOf(modelId);
  } catch (error) {
    if (!(error instanceof UnknownModelPriceError)) throw error;
    throw new ConfigError(
      `${where}: ${field} '${modelId}' has no price in lambdas/core/models/model-prices.json; ` +
        "cost figures and maxCostUsd need one: add the model's Bedrock prices there",
    );
  }
}
