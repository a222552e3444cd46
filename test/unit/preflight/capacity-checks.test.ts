import { describe, expect, it } from "vitest";
import { type GoalLoopsConfigInput, GoalLoopsConfigSchema } from "../../../lib/config/goal-loops-config";
import { checkLambdaConcurrency, checkModelQuotas } from "../../../lib/preflight/capacity-checks";
import { account } from "./support";

const config = (input: GoalLoopsConfigInput) => GoalLoopsConfigSchema.parse(input);
const SONNET = { field: "models.heavy", modelId: "global.anthropic.claude-sonnet-5-5" };
const HAIKU_IN_REGION = { field: "models.fast", modelId: "anthropic.claude-haiku-5-5" };
const QUOTAS = [
  { name: "Cross-Region InvokeModel requests per minute for Claude Sonnet 5.5", value: 200 },
  { name: "Cross-Region InvokeModel tokens per minute for Claude Sonnet 5.5", value: 2_000_000 },
  { name: "On-demand InvokeModel requests per minute for Claude Sonnet 5.5", value: 50 },
  { name: "On-demand InvokeModel requests per minute for Claude Haiku 5.5", value: 400 },
  { name: "On-demand InvokeModel tokens per minute for Claude Haiku 5.5", value: 4_000_000 },
  { name: "On-demand InvokeModel tokens per minute for Claude Haiku 4.5", value: 1 },
];

describe("checkModelQuotas", () => {
  it("prints a profile's cross-region quotas and a foundation model's on-demand ones beside models.quotas", async () => {
    // Prepare
    const reader = account({ serviceQuotas: async () => QUOTAS });
    const paced = config({
      models: {
        quotas: {
          "global.anthropic.claude-sonnet-5-5": { requestsPerMinute: 200, tokensPerMinute: 2_000_000 },
          "anthropic.claude-haiku-5-5": { requestsPerMinute: 800, tokensPerMinute: 4_000_000 },
        },
      },
    });

    // Act
    const [sonnet, haiku] = await checkModelQuotas(reader, paced, [SONNET, HAIKU_IN_REGION]);

    // Assess: within the account's for Sonnet; Haiku's requests above it
    expect(sonnet).toMatchObject({ status: "ok" });
    expect(sonnet?.detail).toContain("account: 200 requests, 2,000,000 tokens a minute");
    expect(haiku).toMatchObject({ status: "warn" });
    expect(haiku?.detail).toContain("account: 400 requests, 4,000,000 tokens a minute");
    expect(haiku?.detail).toContain("requestsPerMinute above the account's");
  });

  it("passes a model the deployment does not pace, saying which numbers would pace it", async () => {
    // Prepare
    const reader = account({ serviceQuotas: async () => QUOTAS });

    // Act
    const [sonnet] = await checkModelQuotas(reader, config({}), [SONNET]);

    // Assess: fine (throttles pace it), with the account's numbers to pace ahead
    expect(sonnet).toMatchObject({ status: "ok" });
    expect(sonnet?.detail).toContain(
      'set models.quotas["global.anthropic.claude-sonnet-5-5"] to {"requestsPerMinute": 200, "tokensPerMinute": 2000000}',
    );
  });

  it("warns, naming the error, when Service Quotas refuses the read", async () => {
    // Prepare
    const denied = Object.assign(new Error("not authorized to perform servicequotas:ListServiceQuotas"), {
      name: "AccessDeniedException",
    });
    const reader = account({
      serviceQuotas: async () => {
        throw denied;
      },
    });

    // Act
    const results = await checkModelQuotas(reader, config({}), [SONNET]);

    // Assess
    expect(results).toEqual([
      {
        check: "models.quotas",
        status: "warn",
        detail:
          "Service Quotas could not be read (AccessDeniedException: not authorized to perform servicequotas:ListServiceQuotas)",
      },
    ]);
  });
});

describe("checkLambdaConcurrency", () => {
  it.each([
    [
      1000,
      1000,
      "ok",
      "1,000 of 1,000 concurrent executions unreserved: up to 50 open event streams (api.stream.maxOpen) leave 950 for steps",
    ],
    [10, 10, "warn", "leave 0 for steps"],
    [1000, 55, "warn", "55 of 1,000 concurrent executions unreserved"],
  ])("%i executions, %i unreserved: %s", async (total, unreserved, status, detail) => {
    // Prepare
    const reader = account({
      lambdaConcurrency: async () => ({
        concurrentExecutions: total,
        unreservedConcurrentExecutions: unreserved,
      }),
    });

    // Act
    const result = await checkLambdaConcurrency(reader, config({}));

    // Assess
    expect(result.status).toBe(status);
    expect(result.detail).toContain(detail);
  });
});
