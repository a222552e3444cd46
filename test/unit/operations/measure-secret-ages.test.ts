import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MetricBatch } from "../../../lambdas/adapters/metrics/goal-metrics";
import { describeSecretChangedDate } from "../../../lambdas/adapters/secrets/secret-changed-date";
import type { OwnedSecret } from "../../../lambdas/core/operations/secret-age";
import { measureSecretAges } from "../../../lambdas/handlers/operations/measure-secret-ages";
import { type AccountEndpoint, startAccountEndpoint } from "../../../lib/local/account/account-endpoint";
import { localAccount } from "../../../lib/local/account/local-account";

const NOW = new Date("2026-12-07T12:00:00Z");
const ACCOUNT_ID = "123456789012";
const arnOf = (name: string) => `arn:aws:secretsmanager:eu-west-1:${ACCOUNT_ID}:secret:${name}-AbCdEf`;

/**
 * The monthly secret-age probe's measure, through the real Secrets Manager SDK client against the
 * local account endpoint (DescribeSecret over AWS JSON 1.1, as preflight reads it).
 */
describe("measureSecretAges", () => {
  let endpoint: AccountEndpoint;
  let client: SecretsManagerClient;

  beforeAll(async () => {
    endpoint = await startAccountEndpoint({
      account: localAccount({
        accountId: ACCOUNT_ID,
        secrets: [
          // Rotated by hand with put-secret-value: only LastChangedDate moves.
          {
            name: "goal-loops-slack-signing",
            createdDate: "2026-01-01T00:00:00Z",
            lastChangedDate: "2026-05-01T00:00:00Z",
          },
          // Rotated by Secrets Manager: LastRotatedDate wins over a later tag edit (LastChangedDate).
          {
            name: "tickets-token",
            createdDate: "2025-01-01T00:00:00Z",
            lastRotatedDate: "2026-11-30T00:00:00Z",
            lastChangedDate: "2026-12-06T00:00:00Z",
          },
          // Never changed since it was made.
          { name: "docs-token", createdDate: "2026-09-08T12:00:00Z" },
        ],
      }),
    });
    client = new SecretsManagerClient({
      endpoint: endpoint.url,
      region: "eu-west-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
    });
  });

  afterAll(async () => {
    client.destroy();
    await endpoint.close();
  });

  it("publishes each owned secret's age in days and names the overdue ones with their owners", async () => {
    // Prepare
    const secrets: OwnedSecret[] = [
      {
        key: "slackSigningSecret",
        secretId: arnOf("goal-loops-slack-signing"),
        owner: "slack-admins@example.com",
        rotateAfterDays: 90,
      },
      { key: "mcp:tickets", secretId: "tickets-token", owner: "tickets team", rotateAfterDays: 30 },
      { key: "mcp:docs", secretId: "docs-token", owner: "docs team", rotateAfterDays: 90 },
    ];
    const published: MetricBatch[] = [];

    // Act
    const measure = await measureSecretAges({
      secrets,
      changedDate: (secretId) => describeSecretChangedDate(client, secretId),
      metrics: { publish: (batches) => published.push(...batches) },
      now: () => NOW,
    });

    // Assess
    expect(measure.unreadable).toEqual([]);
    expect(
      measure.ages.map(({ key, ageDays, overdue, owner }) => ({ key, ageDays, overdue, owner })),
    ).toEqual([
      { key: "slackSigningSecret", ageDays: 220, overdue: true, owner: "slack-admins@example.com" },
      { key: "mcp:tickets", ageDays: 7, overdue: false, owner: "tickets team" },
      // 90 days to the hour: not yet older than rotateAfterDays.
      { key: "mcp:docs", ageDays: 90, overdue: false, owner: "docs team" },
    ]);
    expect(published).toEqual([
      {
        dimensionSets: [{ Secret: "slackSigningSecret" }],
        values: [{ name: "SecretAgeDays", unit: "None", value: 220 }],
      },
      {
        dimensionSets: [{ Secret: "mcp:tickets" }],
        values: [{ name: "SecretAgeDays", unit: "None", value: 7 }],
      },
      {
        dimensionSets: [{ Secret: "mcp:docs" }],
        values: [{ name: "SecretAgeDays", unit: "None", value: 90 }],
      },
    ]);
  });

  it("returns a secret it cannot describe apart, and still publishes the others", async () => {
    // Prepare
    const published: MetricBatch[] = [];

    // Act
    const measure = await measureSecretAges({
      secrets: [
        { key: "emailLinkKey", secretId: "deleted-long-ago", owner: "ops@example.com", rotateAfterDays: 90 },
        { key: "mcp:docs", secretId: "docs-token", owner: "docs team", rotateAfterDays: 30 },
      ],
      changedDate: (secretId) => describeSecretChangedDate(client, secretId),
      metrics: { publish: (batches) => published.push(...batches) },
      now: () => NOW,
    });

    // Assess
    expect(measure.unreadable).toEqual([
      { key: "emailLinkKey", error: expect.stringMatching(/^ResourceNotFoundException: /) },
    ]);
    expect(measure.ages).toEqual([
      { key: "mcp:docs", ageDays: 90, rotateAfterDays: 30, owner: "docs team", overdue: true },
    ]);
    expect(published.map((batch) => batch.dimensionSets)).toEqual([[{ Secret: "mcp:docs" }]]);
  });
});
