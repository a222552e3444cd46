/**
 * oidc/: bearer tokens of an OIDC issuer (`api.auth.jwt`): the settings, a verifier that checks a
 * token against the issuer's JWKS (discovered, cached, refetched on an unknown key), and the one
 * allow / 401 / 403 decision the JWT authorizer makes, deployed and in the local API server alike.
 * Not here: the local issuer that mints tokens for tests (lib/local/api), how a handler reads the
 * authorizer's context (handlers/api/caller-tenant.ts), or which tenant an IAM caller is
 * (core/tenants).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./authorize-bearer";
export * from "./jwt-settings";
export * from "./jwt-verifier";
