import { parseOrThrow } from "../../core/goal/validation";
import * as z from "../../core/zod";

/**
 * The payload settings' defaults, shared by the CDK construct that sets them and the functions that
 * read them (as TABLE_DESIGN is): pure constants, no AWS SDK import.
 */
export const PAYLOAD_SETTINGS_DEFAULTS = {
  /** Items above this many bytes keep their large values in the payload bucket. */
  inlineMaxBytes: 64 * 1024,
  /** The largest workspace file or tool result the store accepts (50 MiB). */
  maxBytes: 50 * 1024 * 1024,
} as const;

/** The settings' bounds, inclusive. */
export const PAYLOAD_SETTINGS_LIMITS = {
  /** DynamoDB's item limit is 400 KB: the threshold leaves room for the attributes that stay. */
  inlineMaxBytes: { min: 1024, max: 350_000 },
  /** 1 GiB. */
  maxBytes: { min: 1, max: 1024 * 1024 * 1024 },
} as const;
/** The largest file the workspace keeps without a payload bucket: two copies fit one DynamoDB item. */
export const INLINE_ONLY_FILE_MAX_BYTES = 190 * 1024;

const intFromEnv = ({ min, max }: { min: number; max: number }) =>
  z.coerce.number().check(z.int(), z.gte(min), z.lte(max));

/** The payload bucket's settings as the GoalTable construct sets them on every function it grants. */
const PayloadEnvironmentSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    PAYLOAD_BUCKET_NAME: z.string().check(z.minLength(3)),
    PAYLOAD_INLINE_MAX_BYTES: z._default(
      intFromEnv(PAYLOAD_SETTINGS_LIMITS.inlineMaxBytes),
      PAYLOAD_SETTINGS_DEFAULTS.inlineMaxBytes,
    ),
    PAYLOAD_MAX_BYTES: z._default(
      intFromEnv(PAYLOAD_SETTINGS_LIMITS.maxBytes),
      PAYLOAD_SETTINGS_DEFAULTS.maxBytes,
    ),
  }),
);

export interface PayloadEnvironment {
  readonly bucketName: string;
  readonly inlineMaxBytes: number;
  readonly maxBytes: number;
}

/**
 * The goals' retention (`data.goalRetentionDays`, GOAL_RETENTION_DAYS): 1 day to 100 years; a typo
 * of a few extra digits is caught.
 */
export const GOAL_RETENTION_LIMITS = { min: 1, max: 36_500 } as const;
/**
 * How long a payload object outlives the items that may point at it: DynamoDB deletes an expired
 * item within days of its TTL, and an item that still exists must never point at a deleted object.
 */
export const PAYLOAD_RETENTION_GRACE_DAYS = 14;

/** GOAL_RETENTION_DAYS, checked at init: undefined when goals are kept (the default). */
export function goalRetentionDaysFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = env.GOAL_RETENTION_DAYS;
  if (value === undefined || value.trim() === "") return undefined;
  return parseOrThrow(intFromEnv(GOAL_RETENTION_LIMITS), value, "GOAL_RETENTION_DAYS");
}

/**
 * The payload settings of this function, or undefined when it has no bucket (the goal store then
 * keeps everything in DynamoDB, and files up to INLINE_ONLY_FILE_MAX_BYTES). A bad value fails at
 * init with the variable's name.
 */
export function payloadSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): PayloadEnvironment | undefined {
  const bucket = env.PAYLOAD_BUCKET_NAME;
  if (bucket === undefined || bucket.trim() === "") return undefined;
  const parsed = parseOrThrow(
    PayloadEnvironmentSchema,
    {
      PAYLOAD_BUCKET_NAME: bucket,
      PAYLOAD_INLINE_MAX_BYTES: env.PAYLOAD_INLINE_MAX_BYTES || undefined,
      PAYLOAD_MAX_BYTES: env.PAYLOAD_MAX_BYTES || undefined,
    },
    "payload settings (environment)",
  );
  return {
    bucketName: parsed.PAYLOAD_BUCKET_NAME,
    inlineMaxBytes: parsed.PAYLOAD_INLINE_MAX_BYTES,
    maxBytes: parsed.PAYLOAD_MAX_BYTES,
  };
}
