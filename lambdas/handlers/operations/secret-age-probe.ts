import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { createPowertoolsGoalMetrics } from "../../adapters/metrics/powertools-goal-metrics";
import { describeSecretChangedDate } from "../../adapters/secrets/secret-changed-date";
import { ValidationError } from "../../core/goal/errors";
import { parseOrThrow } from "../../core/goal/validation";
import { OWNED_SECRETS_ENV, OwnedSecretsSchema, overdueMessage } from "../../core/operations/secret-age";
import { requiredEnv } from "../handler-environment";
import { measureSecretAges, type SecretAgesMeasure } from "./measure-secret-ages";

const logger = new Logger();
const metrics = createPowertoolsGoalMetrics();
const client = new SecretsManagerClient({});
const secrets = parseOrThrow(OwnedSecretsSchema, parseJsonEnv(OWNED_SECRETS_ENV), OWNED_SECRETS_ENV);

/** Thrown after publishing the ages it could read, when a secret could not be described. */
export class SecretAgeUnreadableError extends Error {
  override readonly name = "SecretAgeUnreadableError";
}

/** SecretAgeProbe: run monthly by a schedule, or by hand after a rotation (see `measureSecretAges`). */
export const handler = middy<unknown, SecretAgesMeasure, Error, Context>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    const measure = await measureSecretAges({
      secrets,
      changedDate: (secretId) => describeSecretChangedDate(client, secretId),
      metrics,
      now: () => new Date(),
    });
    for (const age of measure.ages) {
      if (age.overdue) logger.warn(overdueMessage(age.key, age.ageDays, age), { ...age });
      else logger.info("secret age measured", { ...age });
    }
    if (measure.unreadable.length > 0) {
      throw new SecretAgeUnreadableError(
        `cannot describe ${measure.unreadable.map(({ key, error }) => `${key} (${error})`).join(", ")}`,
      );
    }
    return measure;
  });

function parseJsonEnv(name: string): unknown {
  const text = requiredEnv(name);
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError(`Environment variable ${name} is not JSON`, [
      { path: name, message: "not JSON" },
    ]);
  }
}
