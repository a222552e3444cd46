import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeBearer } from "../../../lambdas/adapters/oidc/authorize-bearer";
import { JWT_AUTH_ENV, JwtAuthSettingsSchema } from "../../../lambdas/adapters/oidc/jwt-settings";
import { createJwtVerifier } from "../../../lambdas/adapters/oidc/jwt-verifier";
import { TENANTS_ENV, TenantsSettingsSchema } from "../../../lambdas/core/tenants/tenants-settings";
import { AUTHORIZER_DENIAL_TEMPLATE } from "../../../lib/constructs/gateway-error-templates";
import { createLocalIssuer, type LocalIssuer } from "../../../lib/local/api/local-issuer";
import { listen, type RunningServer } from "../../../lib/local/shared/listen";

const METHOD_ARN = "arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/goals/g-1";

/**
 * The deployed TOKEN authorizer (lambdas/handlers/api/jwt-authorizer.ts) as API Gateway calls it,
 * configured from its environment as the construct sets it, against an issuer serving its JWKS.
 * API Gateway turns a thrown `Unauthorized` into its 401 and a Deny policy into its 403, both in
 * the API's error shape (test/cdk/goals-api.test.ts checks the gateway responses).
 */
describe("the JWT authorizer function", () => {
  let issuer: LocalIssuer;
  let server: RunningServer;
  let handler: typeof import("../../../lambdas/handlers/api/jwt-authorizer").handler;
  let gatewayTemplateText: typeof import("../../../lambdas/handlers/api/jwt-authorizer").gatewayTemplateText;

  beforeAll(async () => {
    issuer = await createLocalIssuer();
    server = await listen(
      createServer((req, res) => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        void issuer
          .handle(server.url, { method: "GET", path: url.pathname, query: url.searchParams, body: "" })
          .then((answer) => {
            res.writeHead(answer?.status ?? 404, answer?.headers ?? {});
            res.end(answer?.body ?? "");
          });
      }),
    );
    process.env[JWT_AUTH_ENV] = JSON.stringify(issuer.jwtSettings(server.url));
    process.env[TENANTS_ENV] = JSON.stringify({ known: ["team-a"] });
    process.env.POWERTOOLS_LOG_LEVEL = "SILENT";
    ({ handler, gatewayTemplateText } = await import("../../../lambdas/handlers/api/jwt-authorizer"));
  });

  afterAll(async () => {
    delete process.env[JWT_AUTH_ENV];
    delete process.env[TENANTS_ENV];
    await server?.close();
  });

  const event = (authorizationToken: string) => ({
    type: "TOKEN" as const,
    authorizationToken,
    methodArn: METHOD_ARN,
  });

  it("allows a valid token on the whole API (the policy is cached per token) with the caller as context", async () => {
    // Prepare
    const token = await issuer.mint(server.url, { tenant: "team-a", sub: "alice" });

    // Act
    const result = await handler(event(`Bearer ${token}`));

    // Assess
    expect(result).toEqual({
      principalId: "alice",
      policyDocument: {
        Version: "2012-10-17",
        Statement: [
          {
            Action: "execute-api:Invoke",
            Effect: "Allow",
            Resource: "arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/*",
          },
        ],
      },
      context: { via: "jwt", tenantId: "team-a", caller: "jwt:alice" },
    });
  });

  it("throws Unauthorized (API Gateway's 401) for an expired, forged or foreign-audience token", async () => {
    // Prepare
    const expired = await issuer.mint(server.url, { tenant: "team-a", sub: "alice", expiresInSeconds: -120 });
    const foreign = await issuer.mint(server.url, { tenant: "team-a", sub: "alice", aud: "another-api" });
    const other = await (await createLocalIssuer()).mint(server.url, { tenant: "team-a", sub: "mallory" });

    // Act + Assess
    for (const token of [expired, foreign, other, "not-a-jwt"]) {
      await expect(handler(event(`Bearer ${token}`))).rejects.toThrow(/^Unauthorized$/);
    }
  });

  it("denies (API Gateway's 403) a valid token of a tenant the deployment does not serve, saying why", async () => {
    // Prepare
    const token = await issuer.mint(server.url, { tenant: "team-z", sub: "zoe" });

    // Act
    const result = await handler(event(`Bearer ${token}`));

    // Assess
    expect(result.policyDocument.Statement).toEqual([
      expect.objectContaining({
        Effect: "Deny",
        Resource: "arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/*",
      }),
    ]);
    expect(result.context).toMatchObject({ code: "UnknownTenant" });
  });

  it("denies in a way the ACCESS_DENIED gateway response turns into the local API's 403 body", async () => {
    // Prepare: API Gateway substitutes $context.authorizer.<key> with the Deny's context values as they are
    const token = await issuer.mint(server.url, { tenant: "team-z", sub: "zoe" });
    const local = await authorizeBearer(
      createJwtVerifier(JwtAuthSettingsSchema.parse(issuer.jwtSettings(server.url))),
      TenantsSettingsSchema.parse({ known: ["team-a"] }),
      `Bearer ${token}`,
    );

    // Act
    const result = await handler(event(`Bearer ${token}`));
    const body = AUTHORIZER_DENIAL_TEMPLATE.replaceAll(
      /\$context\.authorizer\.([a-zA-Z]+)/g,
      (_, key: string) => String(result.context?.[key] ?? ""),
    ).replace("$context.requestId", "req-1");

    // Assess: the same code and message as the local stack's 403 (lib/local/api/api-server.ts)
    if (local.kind !== "deny") throw new Error("the local decision allowed the token");
    expect(JSON.parse(body)).toEqual({
      error: { code: local.code, message: local.message },
      requestId: "req-1",
    });
    expect(local).toMatchObject({ status: 403, code: "UnknownTenant" });
  });

  it("keeps a denial's context text JSON-safe, since the gateway template does not escape it", () => {
    expect(gatewayTemplateText('the "tenant" claim\\ is\nbad')).toBe("the tenant claim isbad");
  });
});
