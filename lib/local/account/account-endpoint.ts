import { randomUUID } from "node:crypto";
import http from "node:http";
import { geographiesOf } from "../../config/bedrock-model-catalog";
import { BOOTSTRAP_VERSION_PARAMETER } from "../../preflight/bootstrap-check";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { AwsApiError } from "../shared/errors";
import { isJsonObject, parseJson } from "../shared/json";
import { listen } from "../shared/listen";
import { type AccountModel, accountBedrockQuotas, accountModels, type LocalAccount } from "./local-account";

export interface AccountEndpoint {
  /** Point the SDK here with `AWS_ENDPOINT_URL` (every service but Bedrock Runtime, which speaks HTTP/2). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The read-only control-plane calls `goal-loops preflight` makes, answered for a described account
 * (`local-account.ts`) over each service's own wire protocol, so the real SDK clients talk to it as
 * to AWS: SSM GetParameter and Secrets Manager DescribeSecret (AWS JSON 1.1), Bedrock
 * GetInferenceProfile and GetFoundationModel, SES v2 GetAccount and GetEmailIdentity, and API
 * Gateway GetAccount (REST JSON). The caller's region is read from its SigV4 credential scope, as
 * AWS answers per region: a `us.` profile does not exist for a caller in eu-west-1.
 */
export async function startAccountEndpoint(options: {
  readonly account: LocalAccount;
  readonly port?: number;
  readonly onError?: (error: unknown) => void;
}): Promise<AccountEndpoint> {
  const { account } = options;
  const models = accountModels(account);
  const server = http.createServer(async (req, res) => {
    const target = req.headers["x-amz-target"];
    const reply = (status: number, body: JsonValue, contentType: string, errorType?: string) => {
      res.writeHead(status, {
        "content-type": contentType,
        "x-amzn-requestid": randomUUID(),
        ...(errorType === undefined ? {} : { "x-amzn-errortype": errorType }),
      });
      res.end(JSON.stringify(body));
    };
    const json = typeof target === "string";
    const contentType = json ? "application/x-amz-json-1.1" : "application/json";
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(Buffer.from(chunk));
      const region = callerRegion(req.headers.authorization);
      const body = Buffer.concat(chunks).toString("utf8");
      const answer = json
        ? jsonOperation(account, region, String(target), parseRequest(body))
        : restOperation(
            account,
            models,
            region,
            req.method ?? "GET",
            new URL(req.url ?? "/", "http://x").pathname,
          );
      reply(200, answer, contentType);
    } catch (error) {
      if (error instanceof AwsApiError) {
        const errorBody: JsonObject = json
          ? { __type: error.code, message: error.message }
          : { message: error.message };
        return reply(error.statusCode, errorBody, contentType, error.code);
      }
      (options.onError ?? console.error)(error);
      reply(
        500,
        { message: error instanceof Error ? error.message : String(error) },
        contentType,
        "InternalFailure",
      );
    }
  });
  const running = await listen(server, options.port);
  return { url: running.url, close: running.close };
}

/** `eu-west-1` of `AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-1/ssm/aws4_request, …`. */
function callerRegion(authorization: string | undefined): string {
  return /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\//.exec(authorization ?? "")?.[1] ?? "us-east-1";
}

function parseRequest(body: string): JsonObject {
  let request: JsonValue;
  try {
    request = parseJson(body || "{}");
  } catch {
    throw new AwsApiError("SerializationException", "The request body is not JSON");
  }
  if (!isJsonObject(request))
    throw new AwsApiError("SerializationException", "The request body is not a JSON object");
  return request;
}

const epochSeconds = (iso: string) => Date.parse(iso) / 1000;

function jsonOperation(
  account: LocalAccount,
  region: string,
  target: string,
  request: JsonObject,
): JsonValue {
  if (target === "AmazonSSM.GetParameter") {
    const name = String(request.Name ?? "");
    if (name !== BOOTSTRAP_VERSION_PARAMETER || account.bootstrapVersion === null) {
      throw new AwsApiError("ParameterNotFound", "");
    }
    return {
      Parameter: {
        Name: name,
        Type: "String",
        Value: String(account.bootstrapVersion),
        Version: 1,
        LastModifiedDate: epochSeconds("2026-01-01T00:00:00Z"),
        ARN: `arn:aws:ssm:${region}:${account.accountId}:parameter${name}`,
        DataType: "text",
      },
    };
  }
  if (target === "ServiceQuotasV20190624.ListServiceQuotas") {
    if (request.ServiceCode !== "bedrock") return { Quotas: [] };
    return {
      Quotas: accountBedrockQuotas(account).map((quota, index) => ({
        ServiceCode: "bedrock",
        ServiceName: "Amazon Bedrock",
        QuotaCode: `L-LOCAL${String(index).padStart(4, "0")}`,
        QuotaName: quota.name,
        Value: quota.value,
        Unit: "None",
        Adjustable: true,
        GlobalQuota: false,
      })),
    };
  }
  if (target === "secretsmanager.DescribeSecret") {
    const id = String(request.SecretId ?? "");
    const arnOf = (name: string) =>
      `arn:aws:secretsmanager:${region}:${account.accountId}:secret:${name}-AbCdEf`;
    // SecretId is a name or the full ARN, as Secrets Manager takes either.
    const secret = account.secrets
      .map((entry) => (typeof entry === "string" ? { name: entry } : entry))
      .find((entry) => entry.name === id || arnOf(entry.name) === id);
    if (secret === undefined) {
      throw new AwsApiError("ResourceNotFoundException", "Secrets Manager can't find the specified secret.");
    }
    // Secrets Manager returns only the fields that have a value (DescribeSecret's reference).
    const dates = {
      DeletedDate: "deletedDate" in secret ? secret.deletedDate : undefined,
      LastChangedDate: "lastChangedDate" in secret ? secret.lastChangedDate : undefined,
      LastRotatedDate: "lastRotatedDate" in secret ? secret.lastRotatedDate : undefined,
    };
    return {
      ARN: arnOf(secret.name),
      Name: secret.name,
      CreatedDate: epochSeconds(
        ("createdDate" in secret ? secret.createdDate : undefined) ?? "2026-01-01T00:00:00Z",
      ),
      ...Object.fromEntries(
        Object.entries(dates).flatMap(([field, iso]) =>
          iso === undefined ? [] : [[field, epochSeconds(iso)]],
        ),
      ),
    };
  }
  throw new AwsApiError(
    "UnknownOperationException",
    `The local account endpoint does not implement ${target}`,
  );
}

function restOperation(
  account: LocalAccount,
  models: ReadonlyMap<string, AccountModel>,
  region: string,
  method: string,
  path: string,
): JsonValue {
  const [, first, second, third] = path.split("/").map(decodeURIComponent);
  if (method === "GET" && first === "inference-profiles" && second !== undefined) {
    return inferenceProfile(models, region, second);
  }
  if (method === "GET" && first === "2016-08-19" && second === "account-settings") {
    const { concurrentExecutions, unreservedConcurrentExecutions } = account.lambda;
    return {
      AccountLimit: {
        ConcurrentExecutions: concurrentExecutions,
        UnreservedConcurrentExecutions: unreservedConcurrentExecutions ?? concurrentExecutions,
        TotalCodeSize: 80_530_636_800,
        CodeSizeUnzipped: 262_144_000,
        CodeSizeZipped: 52_428_800,
      },
      AccountUsage: { TotalCodeSize: 0, FunctionCount: 0 },
    };
  }
  if (method === "GET" && first === "foundation-models" && second !== undefined) {
    return foundationModel(models, region, second);
  }
  if (method === "GET" && first === "v2" && second === "email" && third === "account") {
    const production = account.ses.productionAccess;
    return {
      ProductionAccessEnabled: production,
      SendingEnabled: account.ses.sendingEnabled,
      SendQuota: {
        Max24HourSend: production ? 50_000 : 200,
        MaxSendRate: production ? 14 : 1,
        SentLast24Hours: 0,
      },
      EnforcementStatus: "HEALTHY",
      DedicatedIpAutoWarmupEnabled: false,
    };
  }
  if (method === "GET" && first === "v2" && second === "email" && third === "identities") {
    const name = decodeURIComponent(path.split("/")[4] ?? "");
    if (!account.ses.verifiedIdentities.some((identity) => identity.toLowerCase() === name.toLowerCase())) {
      throw new AwsApiError("NotFoundException", `Email identity ${name} does not exist.`, 404);
    }
    return {
      IdentityType: name.includes("@") ? "EMAIL_ADDRESS" : "DOMAIN",
      FeedbackForwardingStatus: true,
      VerifiedForSendingStatus: true,
      VerificationStatus: "SUCCESS",
      Policies: {},
      Tags: [],
    };
  }
  if (method === "GET" && first === "account" && second === undefined) {
    return {
      ...(account.apiGatewayCloudWatchRoleArn === null
        ? {}
        : { cloudwatchRoleArn: account.apiGatewayCloudWatchRoleArn }),
      throttleSettings: { burstLimit: 5000, rateLimit: 10000 },
      features: ["UsagePlans"],
      apiKeyVersion: "4",
    };
  }
  throw new AwsApiError(
    "UnknownOperationException",
    `The local account endpoint does not implement ${method} ${path}`,
    404,
  );
}

/** A system-defined profile `<geography>.<model id>`, which exists where the geography can be called from. */
function inferenceProfile(models: ReadonlyMap<string, AccountModel>, region: string, id: string): JsonValue {
  const dot = id.indexOf(".");
  const geography = id.slice(0, dot);
  const model = dot < 0 ? undefined : models.get(id.slice(dot + 1));
  const callable = geography === "global" || (geographiesOf(region) ?? []).some((g) => g === geography);
  if (model === undefined || !callable || !model.profiles.includes(geography)) {
    throw new AwsApiError("ResourceNotFoundException", `Inference profile ${id} not found.`, 404);
  }
  return {
    inferenceProfileName: `${geography.toUpperCase()} ${model.name}`,
    description: `Routes requests to ${model.name} in the ${geography} geography.`,
    createdAt: "2026-01-01T00:00:00Z",
    updatedAt: "2026-01-01T00:00:00Z",
    inferenceProfileArn: `arn:aws:bedrock:${region}:000000000000:inference-profile/${id}`,
    models: [{ modelArn: `arn:aws:bedrock:${region}::foundation-model/${model.foundationModelId}` }],
    inferenceProfileId: id,
    status: "ACTIVE",
    type: "SYSTEM_DEFINED",
  };
}

function foundationModel(models: ReadonlyMap<string, AccountModel>, region: string, id: string): JsonValue {
  const model = models.get(id);
  if (model === undefined) {
    throw new AwsApiError("ResourceNotFoundException", `The foundation model ${id} was not found.`, 404);
  }
  return {
    modelDetails: {
      modelArn: `arn:aws:bedrock:${region}::foundation-model/${id}`,
      modelId: id,
      modelName: model.name,
      providerName: "Anthropic",
      inputModalities: ["TEXT", "IMAGE"],
      outputModalities: ["TEXT"],
      responseStreamingSupported: true,
      customizationsSupported: [],
      inferenceTypesSupported: ["INFERENCE_PROFILE"],
      modelLifecycle: {
        status: model.status,
        ...(model.legacyTime === undefined ? {} : { legacyTime: model.legacyTime }),
        ...(model.endOfLifeTime === undefined ? {} : { endOfLifeTime: model.endOfLifeTime }),
      },
    },
  };
}
