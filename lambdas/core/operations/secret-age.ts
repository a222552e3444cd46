import * as z from "../zod";

const DAY_MS = 24 * 3600 * 1000;

/** The variable the secret-age probe reads its owned secrets from, as JSON (an `OwnedSecret[]`). */
export const OWNED_SECRETS_ENV = "OWNED_SECRETS";

/**
 * A secret the deployment reads that has an owner in the configuration (`secrets.<key>`), as the
 * monthly secret-age probe gets it: the key it is configured under, the id Secrets Manager knows
 * it by (an ARN, or the name a user configured), who rotates it and how old it may get.
 */
export const OwnedSecretSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    /** `slackSigningSecret`, `slackBotToken`, `emailLinkKey` or `mcp:<server name>`. */
    key: z.string().check(z.minLength(1)),
    secretId: z.string().check(z.minLength(1)),
    owner: z.string().check(z.minLength(1)),
    rotateAfterDays: z.number().check(z.int(), z.gte(1)),
  }),
);
export type OwnedSecret = z.infer<typeof OwnedSecretSchema>;

export const OwnedSecretsSchema = /* @__PURE__ */ z.lazySchema(() => z.array(OwnedSecretSchema));

/** Whole days from when the secret's value last changed to `now` (0 for a date in the future). */
export function secretAgeDays(changedAt: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - changedAt.getTime()) / DAY_MS));
}

/**
 * A secret is overdue once it is older than its `rotateAfterDays`: on the day itself it is not yet.
 * Preflight's warning and the alarm's threshold (GreaterThanThreshold) draw the same line.
 */
export function isOverdue(ageDays: number, rotateAfterDays: number): boolean {
  return ageDays > rotateAfterDays;
}

/** What preflight and the probe say of an overdue secret: its age, its limit and who rotates it. */
export function overdueMessage(
  name: string,
  ageDays: number,
  secret: Pick<OwnedSecret, "owner" | "rotateAfterDays">,
): string {
  return `${name} is ${ageDays} days old (rotateAfterDays ${secret.rotateAfterDays}): ${secret.owner} should rotate it`;
}
