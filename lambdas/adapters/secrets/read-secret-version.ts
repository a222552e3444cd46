import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import type { ReadSecretVersion } from "./email-secrets";
import type { ReadDatedSecretVersion } from "./slack-secrets";

/**
 * One version stage of a secret through Secrets Manager (`GetSecretValue` with `VersionStage`),
 * or undefined when no version has that stage (a secret never rotated has no `AWSPREVIOUS`).
 */
export function secretVersionReader(client: SecretsManagerClient): ReadSecretVersion {
  return async (arn, versionStage) => {
    try {
      const { SecretString } = await client.send(
        new GetSecretValueCommand({ SecretId: arn, VersionStage: versionStage }),
      );
      return SecretString;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  };
}

/** As secretVersionReader, with the version's `CreatedDate` (when it became a version: its rotation). */
export function datedSecretVersionReader(client: SecretsManagerClient): ReadDatedSecretVersion {
  return async (arn, versionStage) => {
    try {
      const { SecretString, CreatedDate } = await client.send(
        new GetSecretValueCommand({ SecretId: arn, VersionStage: versionStage }),
      );
      return SecretString === undefined
        ? undefined
        : { value: SecretString, createdAt: CreatedDate ?? new Date(0) };
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  };
}
