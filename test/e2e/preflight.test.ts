import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { localAccount } from "../../lib/local/account/local-account";
import { type LocalStack, startLocalStack } from "../../lib/local/local-stack";
import { listen, type RunningServer } from "../../lib/local/shared/listen";
import { PROJECT_DIR } from "./local-stack-harness";

/**
 * `npx goal-loops preflight` as a deployer runs it, its AWS SDK clients pointed at the local stack's
 * account endpoint with the standard `AWS_ENDPOINT_URL`: the account is described by the test (a
 * bootstrapped one, whose API Gateway role, SES sender and MCP secret are set up, and in which
 * Claude Haiku 5.5 has turned Legacy), and each run changes only the configuration file.
 */

const LEGACY_SINCE = "2026-11-02T00:00:00Z";
const END_OF_LIFE = "2027-05-03T00:00:00Z";

/** A configuration that deploys in the test's account: every check passes. */
const READY_CONFIG = {
  models: { fast: "global.anthropic.claude-haiku-4-5-20251001-v1:0" },
  approvals: { email: { sender: "goal-loops@example.com", approvers: ["ops@example.com"] } },
  operations: { alarmEmail: "ops@example.com" },
  tools: {
    mcp: [
      { name: "tickets", url: "https://mcp.example.com/mcp", auth: { secretName: "goal-loops/mcp-token" } },
    ],
  },
};

const ResultsSchema = z.object({
  region: z.string(),
  results: z.array(z.object({ check: z.string(), status: z.string(), detail: z.string() })),
});

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A CLI run loads tsx and the SDK clients (~3 s of CPU), five at once on a shared machine. */
const CLI_TIMEOUT_MS = 180_000;

// The CLI runs are independent (one stack, a configuration file each): run them side by side.
describe.concurrent("goal-loops preflight against the local stack's account endpoint", () => {
  let stack: LocalStack;
  let bedrock: RunningServer;
  let workDir: string;
  const converseRequests: { path: string | undefined; body: unknown }[] = [];

  /** Runs the CLI with only the SDK settings a deployer would export (no other credentials leak in). */
  const preflight = (config: unknown, ...args: string[]): Promise<CliRun> => {
    const file = join(workDir, `config-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(config));
    const env: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith("AWS_")),
    );
    const empty = join(workDir, "empty");
    writeFileSync(empty, "");
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [join(PROJECT_DIR, "bin", "goal-loops.mjs"), "preflight", "--config", file, ...args],
        {
          cwd: PROJECT_DIR,
          env: {
            ...env,
            AWS_ENDPOINT_URL: stack.endpoints.account,
            AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url,
            AWS_ACCESS_KEY_ID: "local",
            AWS_SECRET_ACCESS_KEY: "local",
            AWS_CONFIG_FILE: empty,
            AWS_SHARED_CREDENTIALS_FILE: empty,
            AWS_EC2_METADATA_DISABLED: "true",
          },
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  };

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "goal-loops-preflight-"));
    stack = await startLocalStack({
      projectDir: PROJECT_DIR,
      synth: false,
      port: 0,
      inMemory: true,
      log: () => undefined,
      functionLog: () => undefined,
      account: localAccount({
        accountId: "111122223333",
        apiGatewayCloudWatchRoleArn: "arn:aws:iam::111122223333:role/apigateway-cloudwatch",
        models: {
          "anthropic.claude-haiku-5-5": {
            status: "LEGACY",
            legacyTime: LEGACY_SINCE,
            endOfLifeTime: END_OF_LIFE,
          },
        },
        ses: { verifiedIdentities: ["example.com"] },
        secrets: ["goal-loops/mcp-token"],
      }),
    });
    // Bedrock Runtime speaks HTTP/2 only: a stand-in that answers Converse as Bedrock does.
    const server = http2.createServer();
    server.on("request", (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        converseRequests.push({ path: req.url, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            output: { message: { role: "assistant", content: [{ text: "ready" }] } },
            stopReason: "end_turn",
            usage: { inputTokens: 14, outputTokens: 5, totalTokens: 19 },
            metrics: { latencyMs: 412 },
          }),
        );
      });
    });
    const sessions = new Set<http2.ServerHttp2Session>();
    server.on("session", (session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    });
    const running = await listen(server);
    bedrock = {
      ...running,
      close: () => {
        for (const session of sessions) session.destroy();
        return running.close();
      },
    };
  }, 120_000);

  afterAll(async () => {
    await bedrock?.close();
    await stack?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it(
    "fails on a secret the configuration names and the account does not have",
    async () => {
      // Prepare
      const config = {
        ...READY_CONFIG,
        tools: { mcp: [{ ...READY_CONFIG.tools.mcp[0], auth: { secretName: "goal-loops/absent" } }] },
      };

      // Act
      const run = await preflight(config, "--region", "eu-west-1", "--json");

      // Assess
      expect(run.code).toBe(1);
      const { results } = ResultsSchema.parse(JSON.parse(run.stdout));
      expect(results.filter((result) => result.status === "blocker")).toEqual([
        {
          check: "tools.mcp.0.auth.secretName goal-loops/absent",
          status: "blocker",
          detail: expect.stringContaining("no such secret in this region"),
        },
      ]);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    "fails on a model Bedrock marks Legacy: the default fast model, turned Legacy in this account",
    async () => {
      // Prepare: the default models; Haiku 5.5 is Legacy here
      const { models: _models, ...config } = READY_CONFIG;

      // Act
      const run = await preflight(config, "--region", "us-east-1");

      // Assess
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(
        /BLOCKER\s+models\.fast global\.anthropic\.claude-haiku-5-5\s+inference profile ACTIVE; Claude Haiku 5\.5 is LEGACY since 2026-11-02, end of life 2027-05-03: new customers cannot use it/,
      );
      expect(run.stdout).toContain("1 blocker, 0 warnings: fix the blockers before npx cdk deploy.");
    },
    CLI_TIMEOUT_MS,
  );

  it(
    "fails on the catalog's own Legacy model (Claude Sonnet 4.5), and finds a us. profile from us-east-1",
    async () => {
      // Prepare: Claude Sonnet 4.5 is Legacy on Bedrock; a us. profile does not exist in eu-west-1
      const config = {
        ...READY_CONFIG,
        models: {
          heavy: "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
          fast: READY_CONFIG.models.fast,
          allowed: [
            "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
            READY_CONFIG.models.fast,
            "us.anthropic.claude-sonnet-5-5",
          ],
        },
      };

      // Act: in us-east-1 the us. profile exists; the synth-time check refuses it in eu-west-1 already
      const run = await preflight(config, "--region", "us-east-1", "--json");

      // Assess
      expect(run.code).toBe(1);
      const { results } = ResultsSchema.parse(JSON.parse(run.stdout));
      const byCheck = Object.fromEntries(results.map((result) => [result.check, result]));
      expect(byCheck["models.heavy global.anthropic.claude-sonnet-4-5-20250929-v1:0"]).toMatchObject({
        status: "blocker",
        detail: expect.stringContaining(
          "Claude Sonnet 4.5 is LEGACY since 2026-10-08, end of life 2027-04-08",
        ),
      });
      expect(byCheck["models.allowed.2 us.anthropic.claude-sonnet-5-5"]).toMatchObject({ status: "ok" });
    },
    CLI_TIMEOUT_MS,
  );

  it(
    "prints the checklist and exits 0 for a configuration the account is ready for; --invoke calls each model once and prints what it cost",
    async () => {
      // Act
      const run = await preflight(READY_CONFIG, "--region", "eu-west-1", "--invoke");

      // Assess
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("goal-loops preflight: eu-west-1");
      expect(run.stdout).toMatch(/ok\s+CDK bootstrap\s+version 33 in account 111122223333/);
      expect(run.stdout).toMatch(
        /ok\s+API Gateway logging role\s+arn:aws:iam::111122223333:role\/apigateway-cloudwatch/,
      );
      expect(run.stdout).toMatch(
        /ok\s+models\.heavy global\.anthropic\.claude-sonnet-5-5\s+inference profile ACTIVE; Claude Sonnet 5\.5 ACTIVE/,
      );
      expect(run.stdout).toMatch(
        /ok\s+approvals\.email\.sender goal-loops@example\.com\s+verified through example\.com/,
      );
      expect(run.stdout).toMatch(/ok\s+tools\.mcp\.0\.auth\.secretName goal-loops\/mcp-token\s+exists/);
      // Sonnet 5.5 global at $2 / $10 per 1M tokens: 14 in, 5 out = $0.000078
      expect(run.stdout).toMatch(
        /ok\s+invoke models\.heavy\s+global\.anthropic\.claude-sonnet-5-5 answered in 412 ms \(end_turn\): 14 in, 5 out tokens, \$0\.000078/,
      );
      expect(run.stdout).toMatch(
        /ok\s+invoke models\.fast\s+global\.anthropic\.claude-haiku-4-5-20251001-v1:0 answered/,
      );
      expect(run.stdout).toContain("0 blockers, 0 warnings: ready for npx cdk deploy.");
      expect(converseRequests.map((request) => request.path).sort()).toEqual([
        `/model/${encodeURIComponent("global.anthropic.claude-haiku-4-5-20251001-v1:0")}/converse`,
        "/model/global.anthropic.claude-sonnet-5-5/converse",
      ]);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    "says why it cannot run without credentials, and exits 1",
    async () => {
      // Prepare + Act: a run whose shell has no credentials at all
      const run = await new Promise<CliRun>((resolve, reject) => {
        const env: NodeJS.ProcessEnv = Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !name.startsWith("AWS_")),
        );
        const child = spawn(
          process.execPath,
          [join(PROJECT_DIR, "bin", "goal-loops.mjs"), "preflight", "--region", "eu-west-1"],
          {
            cwd: PROJECT_DIR,
            env: {
              ...env,
              AWS_CONFIG_FILE: join(workDir, "none"),
              AWS_SHARED_CREDENTIALS_FILE: join(workDir, "none"),
              AWS_EC2_METADATA_DISABLED: "true",
            },
          },
        );
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      });

      // Assess
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("No AWS credentials for the SDK's credential chain");
      expect(run.stdout).toBe("");
    },
    CLI_TIMEOUT_MS,
  );
});
