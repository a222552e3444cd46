import type { GoalLoopsConfig } from "../config/goal-loops-config";
import type { AccountReader } from "./account-reader";
import { checkApiGatewayRole } from "./api-gateway-check";
import { checkBootstrap } from "./bootstrap-check";
import { checkLambdaConcurrency, checkModelQuotas } from "./capacity-checks";
import { blocker, type CheckResult } from "./checklist";
import { checkConfiguration } from "./config-checks";
import { checkEmail, checkSecretAges, checkSecrets } from "./delivery-checks";
import { checkModel, configuredModels, invokeModel } from "./model-checks";

export interface PreflightOptions {
  readonly config: GoalLoopsConfig;
  readonly region: string;
  readonly account: AccountReader;
  /** One minimal Converse call per model (`--invoke`): costs a fraction of a cent each. */
  readonly invoke: boolean;
  readonly now?: Date;
}

/**
 * Every check of `goal-loops preflight`, in the order the checklist prints them. Read-only: the
 * account reader only gets and describes (and, with `invoke`, calls the models once each).
 */
export async function runPreflight(options: PreflightOptions): Promise<CheckResult[]> {
  const { config, region, account, invoke, now = new Date() } = options;
  const results: CheckResult[] = [await checkBootstrap(account, region)];
  results.push(await checkApiGatewayRole(account, config, region));
  const models = configuredModels(config, region);
  if ("problem" in models) {
    results.push(blocker("models", models.problem));
  } else {
    for (const model of models.models) results.push(await checkModel(account, region, model, now));
    results.push(...(await checkModelQuotas(account, config, models.models)));
  }
  results.push(await checkLambdaConcurrency(account, config));
  results.push(...(await checkEmail(account, config)));
  results.push(...(await checkSecrets(account, config)));
  results.push(...(await checkSecretAges(account, config, now)));
  results.push(...checkConfiguration(config));
  if (invoke && "models" in models) {
    for (const model of models.models) results.push(await invokeModel(account, model));
  }
  return results;
}
