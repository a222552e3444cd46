import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoDbCapacityStore } from "../../adapters/dynamodb/limits/dynamodb-capacity-store";
import { CapacityGovernor } from "../../core/models/capacity/capacity-governor";
import {
  MODEL_QUOTAS_ENV,
  type ModelQuotas,
  ModelQuotasSchema,
} from "../../core/models/capacity/model-quota";
import type { Clock } from "../../core/ports/clock";
import { parseJsonEnv, requiredEnv } from "../handler-environment";
import { tenantCapacityFromEnv } from "../tenants-from-env";

/** MODEL_QUOTAS, checked at init: a bad value fails the function's first invocation, naming the field. */
export function modelQuotasFromEnv(env: NodeJS.ProcessEnv = process.env): ModelQuotas {
  return (
    parseJsonEnv(MODEL_QUOTAS_ENV, env[MODEL_QUOTAS_ENV], ModelQuotasSchema, "the JSON of models.quotas") ??
    {}
  );
}

/**
 * The capacity governor a model-calling step builds at module scope: the deployment's quotas, its
 * state in the goal table (GOAL_TABLE_NAME) through the step's document client, and the tenants'
 * budgets and shares of the models (TENANTS and the tenants' items).
 */
export function capacityGovernorFromEnv(client: DynamoDBDocumentClient, now: Clock): CapacityGovernor {
  return new CapacityGovernor({
    store: new DynamoDbCapacityStore(client, requiredEnv("GOAL_TABLE_NAME")),
    quotas: modelQuotasFromEnv(),
    tenants: tenantCapacityFromEnv(client),
    now,
  });
}
