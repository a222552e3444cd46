import {
  DescribeSecretCommand,
  type DescribeSecretCommandOutput,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";

/**
 * When a secret's value last changed, as far as DescribeSecret tells (it never returns the value):
 * `LastRotatedDate` when Secrets Manager rotates it (null when rotation is not configured or was
 * turned off), else `LastChangedDate` (the last change of any kind: a `put-secret-value`, as the
 * stack's secrets are rotated by hand, but also a tag or description edit, so the age may read
 * younger than the value is), else `CreatedDate`. One rule for preflight and the secret-age probe.
 */
export function secretChangedDate(
  secret: Pick<DescribeSecretCommandOutput, "LastRotatedDate" | "LastChangedDate" | "CreatedDate">,
): Date | undefined {
  return secret.LastRotatedDate ?? secret.LastChangedDate ?? secret.CreatedDate;
}

/** DescribeSecret of `secretId` (an ARN or a name), and the date its value last changed. */
export async function describeSecretChangedDate(
  client: SecretsManagerClient,
  secretId: string,
): Promise<Date | undefined> {
  return secretChangedDate(await client.send(new DescribeSecretCommand({ SecretId: secretId })));
}
