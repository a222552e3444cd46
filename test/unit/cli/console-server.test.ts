import { createServer, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApiFetch } from "../../../lib/client/index";
import { startConsoleServer } from "../../../lib/local/cli/console-server";
import { IssuerDiscoveryError } from "../../../lib/local/cli/console-sign-in";
import { listen, type RunningServer } from "../../../lib/local/shared/listen";

const TOKEN = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl";
/** What the stand-in signer adds: the proxy must use it for unsigned calls and only for those. */
const SIGNATURE = "AWS4-HMAC-SHA256 Credential=AKIDTEST/20260101/eu-west-1/execute-api/aws4_request";

interface Seen {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

describe("goal-loops console --issuer: sign-in settings, the token relay, and bearer calls passed on unsigned", () => {
  let upstream: RunningServer;
  let proxy: RunningServer;
  let issuerDocument: Record<string, string>;
  const seen: Seen[] = [];
  const signed: string[] = [];

  beforeAll(async () => {
    // One server plays the issuer (under /issuer) and the goals API (under /api).
    upstream = await listen(
      createServer((req, res) => {
        let body = "";
        req.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        req.on("end", () => {
          seen.push({ path: req.url ?? "", headers: req.headers, body });
          res.writeHead(200, { "content-type": "application/json" });
          if (req.url === "/issuer/.well-known/openid-configuration")
            return res.end(JSON.stringify(issuerDocument));
          if (req.url === "/issuer/token")
            return res.end(JSON.stringify({ access_token: TOKEN, token_type: "Bearer" }));
          res.end(JSON.stringify({ tenantId: "team-a" }));
        });
      }),
    );
    issuerDocument = {
      issuer: `${upstream.url}/issuer`,
      authorization_endpoint: `${upstream.url}/issuer/authorize`,
      token_endpoint: `${upstream.url}/issuer/token`,
    };
    const signingFetch: ApiFetch = (url, init = {}) => {
      signed.push(url);
      const headers = new Headers(init.headers);
      headers.set("authorization", SIGNATURE);
      return fetch(url, { ...init, headers });
    };
    proxy = await startConsoleServer({
      apiUrl: `${upstream.url}/api`,
      apiFetch: signingFetch,
      port: 0,
      issuer: { issuer: `${upstream.url}/issuer`, clientId: "console-app" },
    });
  });

  beforeEach(() => {
    seen.length = 0;
    signed.length = 0;
  });

  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it("serves the issuer's endpoints and the client id at /_console/sign-in.json, the token endpoint being its own relay", async () => {
    // Act
    const response = await fetch(`${proxy.url}/_console/sign-in.json`);

    // Assess
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      authorization_endpoint: `${upstream.url}/issuer/authorize`,
      token_endpoint: "/_console/token",
      client_id: "console-app",
    });
  });

  it("passes the page's code exchange to the issuer's token endpoint as it is, and the answer back", async () => {
    // Prepare
    const form =
      "grant_type=authorization_code&code=abc&code_verifier=v&redirect_uri=x&client_id=console-app";

    // Act
    const response = await fetch(`${proxy.url}/_console/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
    });

    // Assess
    expect(await response.json()).toEqual({ access_token: TOKEN, token_type: "Bearer" });
    expect(seen.map(({ path, body }) => ({ path, body }))).toEqual([{ path: "/issuer/token", body: form }]);
    expect(signed).toEqual([]);
  });

  it("forwards a bearer-token call with its Authorization unchanged and does not sign it", async () => {
    // Act
    const response = await fetch(`${proxy.url}/tenants/me`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });

    // Assess
    expect(await response.json()).toEqual({ tenantId: "team-a" });
    expect(seen.map(({ path, headers }) => ({ path, authorization: headers.authorization }))).toEqual([
      { path: "/api/tenants/me", authorization: `Bearer ${TOKEN}` },
    ]);
    expect(signed).toEqual([]);
  });

  it("signs a call without a bearer token as before, and drops any other Authorization the page sent", async () => {
    // Act
    await fetch(`${proxy.url}/tenants/me`);
    await fetch(`${proxy.url}/goals`, { headers: { authorization: "Basic YWxpY2U6c2VjcmV0" } });

    // Assess
    expect(signed).toEqual([`${upstream.url}/api/tenants/me`, `${upstream.url}/api/goals`]);
    expect(seen.map(({ headers }) => headers.authorization)).toEqual([SIGNATURE, SIGNATURE]);
  });

  it("refuses to start when the discovery document names another issuer, or there is none", async () => {
    // Prepare
    issuerDocument = { ...issuerDocument, issuer: "https://elsewhere.example.com" };

    const closed = await listen(createServer());
    await closed.close();

    // Act
    const [wrongIssuer, noIssuer] = await Promise.allSettled([
      startConsoleServer({
        apiUrl: `${upstream.url}/api`,
        apiFetch: fetch,
        port: 0,
        issuer: { issuer: `${upstream.url}/issuer`, clientId: "console-app" },
      }),
      startConsoleServer({
        apiUrl: `${upstream.url}/api`,
        apiFetch: fetch,
        port: 0,
        issuer: { issuer: `${closed.url}/issuer`, clientId: "console-app" },
      }),
    ]);

    // Assess
    expect(wrongIssuer.status === "rejected" && wrongIssuer.reason).toBeInstanceOf(IssuerDiscoveryError);
    expect(wrongIssuer.status === "rejected" && String(wrongIssuer.reason)).toMatch(
      /is for issuer https:\/\/elsewhere\.example\.com, not http/,
    );
    expect(noIssuer.status === "rejected" && String(noIssuer.reason)).toContain(
      `Cannot read the issuer's discovery document at ${closed.url}/issuer/.well-known/openid-configuration`,
    );
  });
});
