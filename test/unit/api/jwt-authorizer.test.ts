import { createServer } from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeBearer, type BearerOutcome } from "../../../lambdas/adapters/oidc/authorize-bearer";
import { JwtAuthSettingsSchema } from "../../../lambdas/adapters/oidc/jwt-settings";
import { createJwtVerifier } from "../../../lambdas/adapters/oidc/jwt-verifier";
import { TenantsSettingsSchema } from "../../../lambdas/core/tenants/tenants-settings";
import { createLocalIssuer, LOCAL_AUDIENCE, type LocalIssuer } from "../../../lib/local/api/local-issuer";
import { listen, type RunningServer } from "../../../lib/local/shared/listen";

/**
 * The JWT authorizer's decision (deployed and local alike) against tokens of a real issuer: the
 * local one, serving its discovery and JWKS over HTTP on 127.0.0.1 as any issuer would.
 */
describe("the JWT authorizer", () => {
  let issuer: LocalIssuer;
  let server: RunningServer;
  let fetches = 0;
  const tenants = TenantsSettingsSchema.parse({ known: ["team-a", "team-b"] });

  beforeAll(async () => {
    issuer = await createLocalIssuer();
    const http = createServer((req, res) => {
      fetches += 1;
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      void issuer
        .handle(server.url, {
          method: req.method ?? "GET",
          path: url.pathname,
          query: url.searchParams,
          body: "",
        })
        .then((answer) => {
          res.writeHead(answer?.status ?? 404, answer?.headers ?? {});
          res.end(answer?.body ?? "");
        });
    });
    server = await listen(http);
  });

  afterAll(async () => {
    await server?.close();
  });

  const settings = () => JwtAuthSettingsSchema.parse(issuer.jwtSettings(server.url));
  const decide = (header: string | undefined, verify = createJwtVerifier(settings())) =>
    authorizeBearer(verify, tenants, header);
  const mint = (claims: { tenant?: string; sub?: string; aud?: string; expiresInSeconds?: number } = {}) =>
    issuer.mint(server.url, { tenant: "team-a", sub: "alice", ...claims });
  const refusal = (outcome: BearerOutcome) =>
    outcome.kind === "deny"
      ? { status: outcome.status, code: outcome.code, message: outcome.message }
      : outcome;

  it("lets a valid token through as its tenant and its sub", async () => {
    // Act
    const outcome = await decide(`Bearer ${await mint()}`);

    // Assess
    expect(outcome).toEqual({
      kind: "allow",
      principalId: "alice",
      context: { via: "jwt", tenantId: "team-a", caller: "jwt:alice" },
    });
  });

  it.each([
    ["no header", async () => undefined, "send Authorization"],
    ["another scheme", async () => `Basic ${Buffer.from("a:b").toString("base64")}`, "send Authorization"],
    ["an expired token", async () => `Bearer ${await mint({ expiresInSeconds: -120 })}`, "expired"],
    ["another audience", async () => `Bearer ${await mint({ aud: "someone-else" })}`, "audience"],
    ["garbage", async () => "Bearer not.a.jwt!", "not a compact JWT"],
    ["a huge token", async () => `Bearer ${"a".repeat(9000)}.b.c`, "not a compact JWT"],
  ])("answers 401 Unauthorized for %s", async (_case, header, message) => {
    // Act
    const outcome = await decide(await header());

    // Assess
    expect(refusal(outcome)).toMatchObject({
      status: 401,
      code: "Unauthorized",
      message: expect.stringContaining(message),
    });
  });

  it("answers 401 for a token of another issuer, even one that serves the same paths", async () => {
    // Prepare: a second local issuer on its own port: its keys, its issuer URL
    const other = await createLocalIssuer();
    const token = await other.mint(server.url.replace("127.0.0.1", "localhost"), {
      tenant: "team-a",
      sub: "mallory",
    });

    // Act
    const outcome = await decide(`Bearer ${token}`);

    // Assess
    expect(refusal(outcome)).toMatchObject({ status: 401, code: "Unauthorized" });
  });

  it("answers 401 for a token signed by a key not in the issuer's JWKS, the JWKS fetched again at most once", async () => {
    // Prepare: the right issuer, audience and kid, but a key of the attacker's own
    const { privateKey } = await generateKeyPair("ES256");
    const forged = await new SignJWT({ tenant: "team-a" })
      .setProtectedHeader({ alg: "ES256", kid: "local-2" })
      .setIssuer(issuer.issuer(server.url))
      .setAudience(LOCAL_AUDIENCE)
      .setSubject("mallory")
      .setExpirationTime("5m")
      .sign(privateKey);
    const verify = createJwtVerifier(settings());
    await decide(`Bearer ${await mint()}`, verify);
    const before = fetches;

    // Act
    const outcome = await decide(`Bearer ${forged}`, verify);

    // Assess
    expect(refusal(outcome)).toMatchObject({
      status: 401,
      message: expect.stringContaining("key the issuer does not list"),
    });
    expect(fetches - before).toBeLessThanOrEqual(1);
  });

  it("answers 401 for alg none and for HS256 signed with the issuer's public key (algorithm confusion)", async () => {
    // Prepare
    const claims = {
      tenant: "team-a",
      sub: "mallory",
      iss: issuer.issuer(server.url),
      aud: LOCAL_AUDIENCE,
      exp: Math.floor(Date.now() / 1000) + 300,
    };
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`;
    const jwks = JSON.parse(
      (
        await issuer.handle(server.url, {
          method: "GET",
          path: "/_local/oidc/jwks",
          query: new URLSearchParams(),
          body: "",
        })
      )?.body ?? "{}",
    );
    const publicKeyText = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: "local-1" })
      .sign(publicKeyText);

    // Act
    const outcomes = [await decide(`Bearer ${none}`), await decide(`Bearer ${hs256}`)];

    // Assess
    for (const outcome of outcomes) {
      expect(refusal(outcome)).toMatchObject({
        status: 401,
        message: expect.stringContaining("not accepted"),
      });
    }
  });

  it("answers 401 for a tampered token: a claim changed after signing", async () => {
    // Prepare: team-a's token, its payload rewritten to team-b, the signature kept
    const [header, payload, signature] = (await mint()).split(".");
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8"));
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, tenant: "team-b" })).toString("base64url")}.${signature}`;

    // Act
    const outcome = await decide(`Bearer ${tampered}`);

    // Assess
    expect(refusal(outcome)).toMatchObject({ status: 401, message: "the token's signature does not match" });
  });

  it("answers 403 UnknownTenant for a valid token without a tenant claim, with a hostile one, or an unserved tenant", async () => {
    // Prepare
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" };
    const own = createJwtVerifier(
      JwtAuthSettingsSchema.parse({
        issuer: "https://issuer.example.com",
        audience: "api",
        jwksUri: "https://issuer.example.com/jwks",
        algorithms: ["ES256"],
      }),
      {
        fetch: async () =>
          new Response(JSON.stringify({ keys: [jwk] }), { headers: { "content-type": "application/json" } }),
      },
    );
    const token = (claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer("https://issuer.example.com")
        .setAudience("api")
        .setSubject("bob")
        .setExpirationTime("5m")
        .sign(privateKey);

    // Act
    const outcomes = await Promise.all(
      [
        {},
        { tenant: "a#b" },
        { tenant: { __proto__: "x" } },
        { tenant: "x".repeat(200) },
        { tenant: "team-z" },
      ].map(async (claims) => authorizeBearer(own, tenants, `Bearer ${await token(claims)}`)),
    );

    // Assess
    expect(outcomes.map(refusal)).toEqual(
      outcomes.map(() => expect.objectContaining({ status: 403, code: "UnknownTenant" })),
    );
  });
});
