/**
 * tenants/: several teams in one deployment (DESIGN §6, "Limits per tenant"): the tenant settings
 * (who an IAM caller's tenant is, which tenants are served, who is an operator), each tenant's
 * limits and how they combine, the start pace (starts per minute), the concurrent-goal slots and
 * the admission of goals waiting for one, and the daily model budget's error and stop reason.
 * Not here: how a caller proves who it is (the API's IAM context, the JWT authorizer in
 * lambdas/adapters/oidc), where the counters live (lambdas/adapters/dynamodb/limits), or a model's
 * own quota and a tenant's share of it (models/capacity, which reads these limits).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./start-pace";
export * from "./tenant-admission";
export * from "./tenant-directory";
export * from "./tenant-limits";
export * from "./tenant-spend";
export * from "./tenants-settings";
