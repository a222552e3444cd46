import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import type { ReadSecretVersion } from "./email-secrets";

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
