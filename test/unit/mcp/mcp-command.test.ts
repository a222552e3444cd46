import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BadTokenError } from "../../../lib/client/bearer-fetch";
import { mcpApiClient } from "../../../lib/mcp/mcp-command";

const SNAPSHOT_ANSWER = { items: [] };

describe("goal-loops mcp's API client", () => {
  const seen: { url: string; headers: Headers }[] = [];
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.unstubAllGlobals();
    seen.length = 0;
  });
  const stubNetwork = () =>
    vi.stubGlobal("fetch", async (url: string, init: RequestInit = {}) => {
      seen.push({ url, headers: new Headers(init.headers) });
      return new Response(JSON.stringify(SNAPSHOT_ANSWER), {
        headers: { "content-type": "application/json" },
      });
    });

  it("signs nothing for the local stack (a loopback URL)", async () => {
    // Prepare
    stubNetwork();

    // Act
    await mcpApiClient({ api: "http://127.0.0.1:8787" }).listApprovals();

    // Assess
    expect(seen[0]?.url).toBe("http://127.0.0.1:8787/approvals?status=pending");
    expect(seen[0]?.headers.get("authorization")).toBeNull();
  });

  it("sends a bearer token (--token) instead of a signature, and refuses one that is not a JWT", async () => {
    // Prepare
    stubNetwork();
    const token = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl";

    // Act
    await mcpApiClient({
      api: "https://abc123.execute-api.eu-west-1.amazonaws.com/v1",
      token,
    }).listApprovals();
    const refusal = (() => {
      try {
        return mcpApiClient({ api: "http://127.0.0.1:8787", token: "not-a-jwt" });
      } catch (error) {
        return error;
      }
    })();

    // Assess
    expect(seen[0]?.headers.get("authorization")).toBe(`Bearer ${token}`);
    expect(refusal).toBeInstanceOf(BadTokenError);
  });

  it("signs with SigV4 from the profile's credentials for a deployed API", async () => {
    // Prepare: a fake profile in temporary shared files, and a stand-in for the network.
    const dir = mkdtempSync(join(tmpdir(), "goal-loops-mcp-aws-"));
    writeFileSync(join(dir, "config"), "[profile mcp-test]\nregion = eu-west-1\n");
    writeFileSync(
      join(dir, "credentials"),
      "[mcp-test]\naws_access_key_id = AKIDMCPTEST\naws_secret_access_key = s3cret\n",
    );
    vi.stubEnv("AWS_CONFIG_FILE", join(dir, "config"));
    vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", join(dir, "credentials"));
    vi.stubEnv("AWS_ACCESS_KEY_ID", "");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "");
    stubNetwork();

    // Act
    try {
      await mcpApiClient({
        api: "https://abc123defg.execute-api.eu-west-1.amazonaws.com/v1",
        profile: "mcp-test",
      }).listApprovals();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // Assess
    expect(seen[0]?.url).toBe(
      "https://abc123defg.execute-api.eu-west-1.amazonaws.com/v1/approvals?status=pending",
    );
    expect(seen[0]?.headers.get("authorization")).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDMCPTEST\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/,
    );
  });
});
