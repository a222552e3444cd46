import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sha256 } from "@smithy/core/checksum";
import { SignatureV4 } from "@smithy/signature-v4";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { signedFetch } from "../../lib/client/index";
import { startConsoleServer } from "../../lib/local/cli/console-server";
import type { RunningServer } from "../../lib/local/shared/listen";
import type { E2eStack } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

/** A GET through node:http, so a stubbed global fetch only ever sees what the proxy forwards. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

describe("goal-loops console: the page on 127.0.0.1 and the API proxied, signed for a deployed stack", () => {
  let e2e: E2eStack;
  let local: RunningServer;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    local = await startConsoleServer({
      apiUrl: e2e.stack.apiUrl,
      apiFetch: signedFetch({ apiUrl: e2e.stack.apiUrl }),
      port: 0,
    });
  });

  afterAll(async () => {
    await local?.close();
    await e2e?.stop();
  });

  afterEach(() => {
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
  });

  it("serves the console and passes its calls to a local stack unsigned", async () => {
    // Prepare
    const { goalId } = await e2e.client.submitGoal({
      objective: "Nothing to do",
      successChecks: [{ id: "c", description: "a file", verify: { kind: "artifact", path: "c.md" } }],
      pattern: "react",
      models: { default: "scripted:write-release-summary" },
    });

    // Act
    const page = await get(`${local.url}/console`);
    const script = await get(`${local.url}/console/app.js`);
    const goal = await get(`${local.url}/goals/${goalId}`);

    // Assess
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script type="module" src="/console/app.js">');
    expect(script.status).toBe(200);
    expect(script.body.length).toBeGreaterThan(1000);
    expect(JSON.parse(goal.body)).toMatchObject({ goalId });
  });

  it("forwards a deployed API's requests with a valid SigV4 Authorization from the profile's credentials", async () => {
    // Prepare: a fake profile in temporary shared files, and a stand-in for the network.
    const dir = mkdtempSync(join(tmpdir(), "goal-loops-aws-"));
    writeFileSync(join(dir, "config"), "[profile console-test]\nregion = eu-west-1\n");
    writeFileSync(
      join(dir, "credentials"),
      "[console-test]\naws_access_key_id = AKIDCONSOLETEST\naws_secret_access_key = console-test-secret\n",
    );
    vi.stubEnv("AWS_CONFIG_FILE", join(dir, "config"));
    vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", join(dir, "credentials"));
    vi.stubEnv("AWS_ACCESS_KEY_ID", "");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "");
    const apiUrl = "https://abc123defg.execute-api.eu-west-1.amazonaws.com/v1";
    const forwarded: { url: string; method: string; headers: Headers }[] = [];
    vi.stubGlobal("fetch", async (url: string, init: RequestInit = {}) => {
      forwarded.push({ url, method: init.method ?? "GET", headers: new Headers(init.headers) });
      return new Response(JSON.stringify({ items: [] }), { headers: { "content-type": "application/json" } });
    });
    const proxy = await startConsoleServer({
      apiUrl,
      apiFetch: signedFetch({ apiUrl, profile: "console-test" }),
      port: 0,
    });

    // Act
    let answer: { status: number; body: string };
    try {
      answer = await get(`${proxy.url}/goals?status=running`, { accept: "application/json" });
    } finally {
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }

    // Assess: recompute the signature with the SDK's signer, the same credentials and the request's date.
    expect(answer.status).toBe(200);
    const [request] = forwarded;
    if (!request) throw new Error("nothing was forwarded");
    expect(request.url).toBe(`${apiUrl}/goals?status=running`);
    const authorization = request.headers.get("authorization") ?? "";
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDCONSOLETEST\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/,
    );
    const amzDate = request.headers.get("x-amz-date") ?? "";
    const signer = new SignatureV4({
      service: "execute-api",
      region: "eu-west-1",
      sha256: Sha256,
      credentials: { accessKeyId: "AKIDCONSOLETEST", secretAccessKey: "console-test-secret" },
    });
    const target = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      if (name !== "authorization" && name !== "x-amz-date" && name !== "x-amz-content-sha256")
        headers[name] = value;
    });
    const expected = await signer.sign(
      {
        method: request.method,
        protocol: target.protocol,
        hostname: target.hostname,
        path: target.pathname,
        query: Object.fromEntries(target.searchParams),
        headers,
      },
      {
        signingDate: new Date(
          `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13)}`,
        ),
      },
    );
    expect(authorization).toBe(expected.headers.authorization);
  });
});
