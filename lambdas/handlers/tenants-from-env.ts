import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoDbTenantStore } from "../adapters/dynamodb/limits/dynamodb-tenant-store";
import type { TenantCapacity } from "../core/models/capacity/capacity-governor";
import { tenantLimitsReader } from "../core/tenants/tenant-directory";
import {
  DEFAULT_TENANTS_SETTINGS,
  TENANTS_ENV,
  type TenantsSettings,
  TenantsSettingsSchema,
} from "../core/tenants/tenants-settings";
import { parseJsonEnv, requiredEnv } from "./handler-environment";

/**
 * TENANTS (the configuration's `tenants`, JSON), checked at init: a bad value fails the function's
 * first invocation, naming the field. Unset: every default (each IAM caller its account's tenant, no
 * limit in the configuration).
 */
export function tenantsSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TenantsSettings {
  return (
    parseJsonEnv(TENANTS_ENV, env[TENANTS_ENV], TenantsSettingsSchema, "the JSON of tenants") ??
    DEFAULT_TENANTS_SETTINGS
  );
}

/** The tenants' items of the goal table (GOAL_TABLE_NAME), through the function's document client. */
export function tenantStoreFromEnv(client: DynamoDBDocumentClient): DynamoDbTenantStore {
  return new DynamoDbTenantStore(client, requiredEnv("GOAL_TABLE_NAME"));
}

/**
 * What the capacity governor of a model-calling step needs of the tenants: their limits (the
 * configuration's, then an operator's, read at every call so a raised budget counts at once) and
 * their spend per day. A spend that could not be counted is logged, never thrown: the call it
 * counts was paid for, and failing the step would pay for it again.
 */
export function tenantCapacityFromEnv(
  client: DynamoDBDocumentClient,
  env: NodeJS.ProcessEnv = process.env,
): TenantCapacity {
  const store = tenantStoreFromEnv(client);
  return {
    limits: tenantLimitsReader(tenantsSettingsFromEnv(env), store),
    spent: (tenantId, day) => store.spend(tenantId, day),
    addSpend: (tenantId, day, usd) =>
      store.addSpend(tenantId, day, usd).catch((error: unknown) => {
        console.error(
          JSON.stringify({ message: "tenant spend not counted", tenantId, day, usd, error: String(error) }),
        );
      }),
  };
}
