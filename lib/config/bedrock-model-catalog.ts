/**
 * What goal-loops knows about the Bedrock models it picks by default: which inference profiles each
 * has (a profile id is `<geography>.<foundation model id>`), and where each stands in Bedrock's
 * lifecycle. Synth checks the configured models against it and the stack's region, because Bedrock
 * only tells at the first call (a `us.` profile fails from an EU region; a model without a profile
 * in the geography has nothing to call). Sources: the Bedrock model cards and lifecycle page, and
 * Anthropic's Bedrock model table, as of 2026-12 (/work/shared/FACTS.md); check them when adding a
 * model, and add its prices to lambdas/core/models/model-prices.json too.
 */

/** The prefixes of Bedrock's system-defined inference profiles: one geography each, or `global`. */
export const PROFILE_GEOGRAPHIES = ["global", "us", "us-gov", "eu", "apac", "jp", "au", "ca"] as const;
export type ProfileGeography = (typeof PROFILE_GEOGRAPHIES)[number];

const PROFILE_PREFIX = new RegExp(`^(${PROFILE_GEOGRAPHIES.join("|")})\\.`);

/** A model id split into its inference profile's geography (none: a foundation model id) and the foundation model. */
export interface ParsedModelId {
  readonly geography?: ProfileGeography;
  readonly foundationModelId: string;
}

export function parseModelId(modelId: string): ParsedModelId {
  const match = PROFILE_PREFIX.exec(modelId);
  if (!match) return { foundationModelId: modelId };
  return {
    geography: match[1] as ProfileGeography,
    foundationModelId: modelId.slice(match[0].length),
  };
}

/** The id of `foundationModelId`'s inference profile in `geography`. */
export function profileId(geography: ProfileGeography, foundationModelId: string): string {
  return `${geography}.${foundationModelId}`;
}

export type ModelLifecycle =
  | { readonly status: "active" }
  /** New customers cannot use a Legacy model; it stops answering at its end of life. */
  | { readonly status: "legacy"; readonly since: string; readonly endOfLife: string };

export interface KnownModel {
  readonly name: string;
  readonly foundationModelId: string;
  /** The geographies it has an inference profile in. Every model here is callable through one only. */
  readonly profiles: readonly ProfileGeography[];
  readonly lifecycle: ModelLifecycle;
}

export const CLAUDE_SONNET_5_5: KnownModel = {
  name: "Claude Sonnet 5.5",
  foundationModelId: "anthropic.claude-sonnet-5-5",
  profiles: ["global", "us", "eu"],
  lifecycle: { status: "active" },
};
export const CLAUDE_HAIKU_5_5: KnownModel = {
  name: "Claude Haiku 5.5",
  foundationModelId: "anthropic.claude-haiku-5-5",
  profiles: ["global", "us", "jp"],
  lifecycle: { status: "active" },
};
export const CLAUDE_HAIKU_4_5: KnownModel = {
  name: "Claude Haiku 4.5",
  foundationModelId: "anthropic.claude-haiku-4-5-20251001-v1:0",
  profiles: ["global", "us", "eu", "jp", "au"],
  lifecycle: { status: "active" },
};
export const CLAUDE_SONNET_4_5: KnownModel = {
  name: "Claude Sonnet 4.5",
  foundationModelId: "anthropic.claude-sonnet-4-5-20250929-v1:0",
  profiles: ["global", "us", "eu", "jp"],
  lifecycle: { status: "legacy", since: "2026-10-08", endOfLife: "2027-04-08" },
};

export const KNOWN_MODELS: readonly KnownModel[] = [
  CLAUDE_SONNET_5_5,
  CLAUDE_HAIKU_5_5,
  CLAUDE_HAIKU_4_5,
  CLAUDE_SONNET_4_5,
];

/**
 * The default of each tier, in order of preference: a tier left unset gets the first that has a
 * profile where the stack may send data (`global`, or with `dataResidency` the region's geography).
 * Haiku 4.5 stands behind Haiku 5.5 because Haiku 5.5 has no `eu.` profile.
 */
export const DEFAULT_MODEL_CANDIDATES = {
  heavy: [CLAUDE_SONNET_5_5],
  fast: [CLAUDE_HAIKU_5_5, CLAUDE_HAIKU_4_5],
} as const satisfies Record<"heavy" | "fast", readonly KnownModel[]>;

export function knownModel(foundationModelId: string): KnownModel | undefined {
  return KNOWN_MODELS.find((model) => model.foundationModelId === foundationModelId);
}

/** `global., us., eu.`: how messages list a model's profiles. */
export function profileList(model: KnownModel): string {
  return model.profiles.map((geography) => `${geography}.`).join(", ");
}

/**
 * The geographic profiles a region may call, narrowest first (Tokyo: `jp.` before `apac.`), or
 * undefined for a region whose geography is not known here.
 */
export function geographiesOf(region: string): readonly ProfileGeography[] | undefined {
  if (region.startsWith("us-gov-")) return ["us-gov"];
  if (region.startsWith("us-")) return ["us"];
  if (region.startsWith("eu-")) return ["eu"];
  if (region.startsWith("ca-")) return ["ca"];
  if (region === "ap-northeast-1" || region === "ap-northeast-3") return ["jp", "apac"];
  if (region === "ap-southeast-2" || region === "ap-southeast-4") return ["au", "apac"];
  if (region.startsWith("ap-")) return ["apac"];
  return undefined;
}
