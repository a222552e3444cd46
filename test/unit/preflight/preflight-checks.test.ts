import { describe, expect, it } from "vitest";
import { type GoalLoopsConfigInput, GoalLoopsConfigSchema } from "../../../lib/config/goal-loops-config";
import type { EmailIdentityInfo } from "../../../lib/preflight/account-reader";
import { checkApiGatewayRole } from "../../../lib/preflight/api-gateway-check";
import { checkBootstrap } from "../../../lib/preflight/bootstrap-check";
import { formatChecklist } from "../../../lib/preflight/checklist";
import { checkConfiguration } from "../../../lib/preflight/config-checks";
import { checkEmail, checkSecretAges } from "../../../lib/preflight/delivery-checks";
import { checkModel } from "../../../lib/preflight/model-checks";
import { account } from "./support";

/**
 * The checks' verdicts for account states that are awkward to set up end to end; the end-to-end
 * file drives the same checks through the real SDK clients against the local account endpoint.
 */

const config = (input: GoalLoopsConfigInput) => GoalLoopsConfigSchema.parse(input);

describe("checkBootstrap", () => {
  it.each([
    [
      undefined,
      "blocker",
      "eu-west-1 is not bootstrapped (no /cdk-bootstrap/hnb659fds/version): run npx cdk bootstrap aws://<account>/eu-west-1 once",
    ],
    ["5", "blocker", "version 5; cdk deploy needs 6 or later"],
    ["21", "warn", "version 21 deploys (needs 6); the CLI's template is 33"],
    ["33", "ok", "version 33 (cdk deploy needs 6 or later)"],
  ])("version parameter %s: %s", async (value, status, detail) => {
    // Prepare
    const reader = account({ parameter: async () => (value === undefined ? undefined : { value }) });

    // Act
    const result = await checkBootstrap(reader, "eu-west-1");

    // Assess
    expect(result.status).toBe(status);
    expect(result.detail).toContain(detail);
  });

  it("reports a refused read as a blocker, with the error's name", async () => {
    // Prepare
    const denied = Object.assign(new Error("not authorized to perform ssm:GetParameter"), {
      name: "AccessDeniedException",
    });

    // Act
    const result = await checkBootstrap(account({ parameter: () => Promise.reject(denied) }), "eu-west-1");

    // Assess
    expect(result).toEqual({
      check: "CDK bootstrap",
      status: "blocker",
      detail:
        "cannot read /cdk-bootstrap/hnb659fds/version: AccessDeniedException: not authorized to perform ssm:GetParameter",
    });
  });
});

describe("checkApiGatewayRole", () => {
  const ROLE = "arn:aws:iam::123456789012:role/apigw-logs";

  it.each([
    [false, undefined, "blocker"],
    [false, ROLE, "ok"],
    [true, undefined, "ok"],
    [true, ROLE, "warn"],
  ] as const)("manage %s, account role %s: %s", async (manage, role, status) => {
    // Act
    const result = await checkApiGatewayRole(
      account({ apiGatewayCloudWatchRoleArn: async () => role }),
      config({ api: { manageAccountCloudWatchRole: manage } }),
      "eu-west-1",
    );

    // Assess
    expect(result.status).toBe(status);
  });
});

describe("checkModel", () => {
  const now = new Date("2026-12-01T00:00:00Z");
  const profile = {
    id: "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
    status: "ACTIVE",
    modelArns: [
      "arn:aws:bedrock:eu-central-1::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0",
      "arn:aws:bedrock:eu-west-1::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0",
    ],
  };
  const model = { field: "models.fast", modelId: profile.id };

  it("finds an Active model through its profile, and warns once its end of life is announced", async () => {
    // Prepare
    const asked: string[] = [];
    const reader = (endOfLifeTime?: Date) =>
      account({
        inferenceProfile: async () => profile,
        foundationModel: async (id) => {
          asked.push(id);
          return {
            modelId: id,
            name: "Claude Haiku 4.5",
            lifecycleStatus: "ACTIVE",
            ...(endOfLifeTime === undefined ? {} : { endOfLifeTime }),
          };
        },
      });

    // Act
    const active = await checkModel(reader(), "eu-west-1", model, now);
    const announced = await checkModel(reader(new Date("2027-06-01T00:00:00Z")), "eu-west-1", model, now);

    // Assess
    expect(active).toMatchObject({
      status: "ok",
      detail: "inference profile ACTIVE; Claude Haiku 4.5 ACTIVE",
    });
    expect(announced).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("end of life 2027-06-01"),
    });
    expect(asked).toEqual([
      "anthropic.claude-haiku-4-5-20251001-v1:0",
      "anthropic.claude-haiku-4-5-20251001-v1:0",
    ]);
  });

  it("blocks a missing profile, a Legacy model and one past its end of life", async () => {
    // Act
    const missing = await checkModel(
      account({ inferenceProfile: async () => undefined }),
      "eu-west-1",
      model,
      now,
    );
    const legacy = await checkModel(
      account({
        inferenceProfile: async () => profile,
        foundationModel: async (id) => ({
          modelId: id,
          name: "Claude Haiku 4.5",
          lifecycleStatus: "LEGACY",
          legacyTime: new Date("2026-11-01T00:00:00Z"),
          endOfLifeTime: new Date("2027-05-01T00:00:00Z"),
        }),
      }),
      "eu-west-1",
      model,
      now,
    );
    const ended = await checkModel(
      account({
        inferenceProfile: async () => profile,
        foundationModel: async (id) => ({
          modelId: id,
          lifecycleStatus: "LEGACY",
          endOfLifeTime: new Date("2026-10-01T00:00:00Z"),
        }),
      }),
      "eu-west-1",
      model,
      now,
    );

    // Assess
    expect(missing).toMatchObject({
      status: "blocker",
      detail: "Bedrock has no inference profile 'eu.anthropic.claude-haiku-4-5-20251001-v1:0' in eu-west-1",
    });
    expect(legacy).toMatchObject({
      status: "blocker",
      detail: expect.stringMatching(
        /^inference profile ACTIVE; Claude Haiku 4\.5 is LEGACY since 2026-11-01, end of life 2027-05-01: .*set models\.fast to a current model/,
      ),
    });
    expect(ended).toMatchObject({
      status: "blocker",
      detail: expect.stringContaining("reached its end of life on 2026-10-01"),
    });
  });
});

describe("checkEmail", () => {
  const identities =
    (verified: readonly string[]) =>
    async (name: string): Promise<EmailIdentityInfo | undefined> =>
      verified.includes(name)
        ? { type: name.includes("@") ? "EMAIL_ADDRESS" : "DOMAIN", verifiedForSending: true }
        : undefined;

  it("blocks an unverified sender, and unverified recipients while the account is in the sandbox", async () => {
    // Prepare
    const settings = config({
      approvals: {
        email: { sender: "goals@example.com", approvers: ["ops@example.com", "cto@elsewhere.org"] },
      },
    });

    // Act
    const sandbox = await checkEmail(
      account({
        emailIdentity: identities(["example.com"]),
        sesAccount: async () => ({ productionAccessEnabled: false, sendingEnabled: true }),
      }),
      settings,
    );
    const production = await checkEmail(
      account({
        emailIdentity: identities([]),
        sesAccount: async () => ({ productionAccessEnabled: true, sendingEnabled: true }),
      }),
      settings,
    );

    // Assess
    expect(sandbox).toEqual([
      {
        check: "approvals.email.sender goals@example.com",
        status: "ok",
        detail: "verified through example.com",
      },
      {
        check: "SES account",
        status: "blocker",
        detail: expect.stringContaining(
          "in the SES sandbox, which mails verified identities only: cto@elsewhere.org is not; verify it",
        ),
      },
    ]);
    expect(production.map((result) => result.status)).toEqual(["blocker", "ok"]);
  });

  it("skips SES when no e-mail is configured", async () => {
    // Act
    const results = await checkEmail(account({}), config({}));

    // Assess
    expect(results.map((result) => result.status)).toEqual(["skip"]);
  });
});

describe("checkConfiguration and the checklist", () => {
  it("blocks empty approver lists and loopback URLs, warns without an alarm address, and tallies", () => {
    // Act
    const results = checkConfiguration(
      config({ tools: { mcp: [{ name: "everything", url: "http://127.0.0.1:3001/mcp" }] } }),
    );
    const lines = formatChecklist(results);

    // Assess
    expect(results.map((result) => [result.check, result.status])).toEqual([
      ["approvers", "blocker"],
      ["alarm e-mail", "warn"],
      ["tools.mcp.0.url", "blocker"],
    ]);
    expect(lines.at(-1)).toBe("2 blockers, 1 warning: fix the blockers before npx cdk deploy.");
    expect(lines[0]).toMatch(/^ {2}BLOCKER {2}approvers/);
  });
});

describe("checkSecretAges", () => {
  const NOW = new Date("2026-12-07T00:00:00Z");
  const mcp = (name: string, secretName: string) => ({
    name,
    url: "https://mcp.example.com/mcp",
    auth: { secretName },
  });

  it("names the owner of a secret older than its rotateAfterDays, and lists the stack's own owners", async () => {
    // Prepare
    const changed: Record<string, Date> = {
      "tickets-token": new Date("2026-06-01T00:00:00Z"),
      "docs-token": new Date("2026-12-01T00:00:00Z"),
    };
    const reader = account({
      secret: async (name) => ({ arn: `arn:${name}`, changedDate: changed[name] }),
    });
    const settings = config({
      tools: { mcp: [mcp("tickets", "tickets-token"), mcp("docs", "docs-token")] },
      secrets: {
        "mcp:tickets": { owner: "tickets-team@example.com", rotateAfterDays: 30 },
        "mcp:docs": { owner: "docs team" },
        slackSigningSecret: { owner: "slack-admins@example.com" },
        "mcp:gone": { owner: "nobody@example.com" },
      },
    });

    // Act
    const results = await checkSecretAges(reader, settings, NOW);

    // Assess
    expect(results.map(({ check, status }) => `${status} ${check}`)).toEqual([
      "warn secrets.mcp:tickets",
      "ok secrets.mcp:docs",
      "ok secrets.slackSigningSecret",
      "warn secrets.mcp:gone",
    ]);
    expect(results[0]?.detail).toBe(
      "tickets-token is 189 days old (rotateAfterDays 30): tickets-team@example.com should rotate it",
    );
    expect(results[2]?.detail).toContain("slack-admins@example.com");
  });

  it("refuses a secret key it does not know, naming the field", () => {
    // Act + Assess
    expect(() => config({ secrets: { githubToken: { owner: "me@example.com" } } })).toThrow(
      /slackSigningSecret, slackBotToken, emailLinkKey, or mcp:<server name>/,
    );
  });
});
