import { describe, expect, it } from "vitest";
import { slackTenantOf } from "../../../../lambdas/core/human/slack/slack-tenants";
import { slackChannelTenantsFromEnv } from "../../../../lambdas/handlers/human/slack/slack-channel-tenants-env";

describe("slackChannelTenantsFromEnv", () => {
  it("reads the channel map the construct sets, and none when unset", () => {
    // Act
    const map = slackChannelTenantsFromEnv({
      SLACK_CHANNEL_TENANTS: '{"C0TEAMA":"team-a","G0TEAMB":"team-b"}',
    });

    // Assess
    expect([...map]).toEqual([
      ["C0TEAMA", "team-a"],
      ["G0TEAMB", "team-b"],
    ]);
    expect(slackChannelTenantsFromEnv({}).size).toBe(0);
  });

  it.each([
    ["{not json", /SLACK_CHANNEL_TENANTS is not JSON/],
    ['{"#ops":"team-a"}', /SLACK_CHANNEL_TENANTS/],
    ['{"C0TEAMA":"team a"}', /SLACK_CHANNEL_TENANTS/],
  ])("refuses %s, naming the variable", (value, message) => {
    expect(() => slackChannelTenantsFromEnv({ SLACK_CHANNEL_TENANTS: value })).toThrow(message);
  });
});

describe("slackTenantOf", () => {
  const tenancy = { workspaceTenantId: "123456789012", channelTenants: new Map([["C0TEAMA", "team-a"]]) };

  it("acts for a mapped channel's tenant, and for the workspace's from any other channel or none", () => {
    expect(slackTenantOf(tenancy, "C0TEAMA")).toBe("team-a");
    expect(slackTenantOf(tenancy, "C0OPS")).toBe("123456789012");
    expect(slackTenantOf(tenancy, undefined)).toBe("123456789012");
  });
});
