import { type ModelQuota, quotaOf } from "../../lambdas/core/models/capacity/model-quota";
import { knownModel, parseModelId } from "../config/bedrock-model-catalog";
import type { GoalLoopsConfig } from "../config/goal-loops-config";
import { type AccountReader, describeError, type ServiceQuotaInfo } from "./account-reader";
import { type CheckResult, ok, warn } from "./checklist";
import type { ConfiguredModel } from "./model-checks";

/** The per-minute quotas of one model the account has, as Service Quotas names them. */
interface AccountModelQuota {
  readonly requestsPerMinute?: ServiceQuotaInfo;
  readonly tokensPerMinute?: ServiceQuotaInfo;
}

/**
 * The account's Bedrock quotas for each configured model (Service Quotas: requests and tokens per
 * minute), printed beside `models.quotas` with the numbers to set: a model paced above what the
 * account may send is a warning; one not paced ahead is fine (throttles then pace it).
 */
export async function checkModelQuotas(
  account: AccountReader,
  config: GoalLoopsConfig,
  models: readonly ConfiguredModel[],
): Promise<CheckResult[]> {
  let quotas: readonly ServiceQuotaInfo[];
  try {
    quotas = await account.serviceQuotas("bedrock");
  } catch (error) {
    return [warn("models.quotas", `Service Quotas could not be read (${describeError(error)})`)];
  }
  const results: CheckResult[] = [];
  for (const { modelId } of models) {
    const check = `models.quotas ${modelId}`;
    const name = await modelName(account, modelId);
    const found = accountQuotaOf(quotas, name, parseModelId(modelId).geography !== undefined);
    const configured = quotaOf(config.models.quotas ?? {}, modelId);
    results.push(quotaVerdict(check, modelId, found, configured));
  }
  return results;
}

function quotaVerdict(
  check: string,
  modelId: string,
  found: AccountModelQuota,
  configured: ModelQuota | undefined,
): CheckResult {
  const rpm = found.requestsPerMinute?.value;
  const tpm = found.tokensPerMinute?.value;
  const account = `account: ${describe(rpm, "requests")}, ${describe(tpm, "tokens")} a minute`;
  if (configured === undefined) {
    const suggestion =
      rpm === undefined && tpm === undefined
        ? ""
        : `: set models.quotas["${modelId}"] to {"requestsPerMinute": ${rpm ?? "…"}, "tokensPerMinute": ${tpm ?? "…"}}`;
    // Not pacing is a choice, not a fault: Bedrock's throttles then pace the goals (they wait).
    return ok(
      check,
      `${account}; not paced ahead (no models.quotas entry): a burst of goals waits on Bedrock's throttling${suggestion}`,
    );
  }
  const ours = `models.quotas: ${describe(configured.requestsPerMinute, "requests")}, ${describe(configured.tokensPerMinute, "tokens")}`;
  const above = [
    ...(rpm !== undefined && configured.requestsPerMinute > rpm ? ["requestsPerMinute"] : []),
    ...(tpm !== undefined && configured.tokensPerMinute > tpm ? ["tokensPerMinute"] : []),
  ];
  if (above.length > 0) {
    return warn(
      check,
      `${account}; ${ours}: ${above.join(" and ")} above the account's, so calls are throttled (and wait) until the governor slows down: lower them`,
    );
  }
  return ok(check, `${account}; ${ours}`);
}

const describe = (value: number | undefined, what: string) =>
  value === undefined ? `? ${what}` : `${value.toLocaleString("en-US")} ${what}`;

/** The model's name as Bedrock's quotas name it: the catalog's, else GetFoundationModel's. */
async function modelName(account: AccountReader, modelId: string): Promise<string> {
  const { foundationModelId } = parseModelId(modelId);
  const known = knownModel(foundationModelId)?.name;
  if (known !== undefined) return known;
  try {
    return (await account.foundationModel(foundationModelId))?.name ?? foundationModelId;
  } catch {
    return foundationModelId;
  }
}

/**
 * The account's per-minute quotas of the model named `name`: for an inference profile, the
 * cross-region (or global) ones; for a foundation model, the on-demand ones.
 */
function accountQuotaOf(
  quotas: readonly ServiceQuotaInfo[],
  name: string,
  profile: boolean,
): AccountModelQuota {
  const ofModel = quotas.filter((quota) => {
    const text = quota.name.toLowerCase();
    return (
      text.endsWith(` ${name.toLowerCase()}`) &&
      text.includes("per minute") &&
      (profile ? /cross-region|global/.test(text) : /on-demand/.test(text))
    );
  });
  const pick = (what: "requests" | "tokens") =>
    ofModel.find((quota) => quota.name.toLowerCase().includes(`${what} per minute`));
  const requestsPerMinute = pick("requests");
  const tokensPerMinute = pick("tokens");
  return {
    ...(requestsPerMinute === undefined ? {} : { requestsPerMinute }),
    ...(tokensPerMinute === undefined ? {} : { tokensPerMinute }),
  };
}

/** A goal takes one concurrent execution while a step runs; far fewer than this will queue steps. */
const FEW_STEPS_AT_ONCE = 10;

/**
 * How many concurrent goals and streams the account's Lambda concurrency carries: every open event
 * stream holds one execution for up to 15 minutes (at most `api.stream.maxOpen`), and every goal
 * one while a step of it runs (a plan's batch up to `planExecute.maxConcurrency`). A step Lambda
 * refuses waits and runs later (never fails), but with too little concurrency goals crawl.
 */
export async function checkLambdaConcurrency(
  account: AccountReader,
  config: GoalLoopsConfig,
): Promise<CheckResult> {
  const check = "Lambda concurrency";
  let unreserved: number;
  let total: number;
  try {
    const settings = await account.lambdaConcurrency();
    unreserved = settings.unreservedConcurrentExecutions;
    total = settings.concurrentExecutions;
  } catch (error) {
    return warn(check, `could not be read (${describeError(error)})`);
  }
  const streams = config.api.stream.maxOpen;
  const forSteps = unreserved - streams;
  const detail = `${unreserved.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} concurrent executions unreserved: up to ${streams} open event streams (api.stream.maxOpen) leave ${Math.max(0, forSteps).toLocaleString("en-US")} for steps — about that many goals stepping at once (a plan's batch takes up to ${config.planExecute.maxConcurrency})`;
  if (forSteps < FEW_STEPS_AT_ONCE) {
    return warn(
      check,
      `${detail}: ask for more Lambda concurrency (Service Quotas, "Concurrent executions") or lower api.stream.maxOpen; refused steps wait, so goals slow down but do not fail`,
    );
  }
  return ok(check, detail);
}
