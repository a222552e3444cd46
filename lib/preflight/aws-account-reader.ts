import {
  APIGatewayClient,
  GetAccountCommand as GetApiGatewayAccountCommand,
} from "@aws-sdk/client-api-gateway";
import {
  BedrockClient,
  ResourceNotFoundException as BedrockNotFound,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
} from "@aws-sdk/client-bedrock";
import { BedrockRuntimeClient, ConverseCommand } from "@aws-sdk/client-bedrock-runtime";
import { GetAccountSettingsCommand, LambdaClient } from "@aws-sdk/client-lambda";
import {
  DescribeSecretCommand,
  ResourceNotFoundException as SecretNotFound,
  SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import { paginateListServiceQuotas, ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import {
  GetAccountCommand,
  GetEmailIdentityCommand,
  NotFoundException,
  SESv2Client,
} from "@aws-sdk/client-sesv2";
import { GetParameterCommand, ParameterNotFound, SSMClient } from "@aws-sdk/client-ssm";
import { secretChangedDate } from "../../lambdas/adapters/secrets/secret-changed-date";
import type { AccountReader } from "./account-reader";

export interface AwsAccountReaderOptions {
  readonly region: string;
  /** A profile of the shared config files; else the SDK's default credential chain. */
  readonly profile?: string;
}

/**
 * The account as the AWS SDK reads it, through the default credential chain (or `profile`), in one
 * region. Endpoints come from the SDK's own settings, so `AWS_ENDPOINT_URL` (and the per-service
 * `AWS_ENDPOINT_URL_SSM`, `_BEDROCK`, `_SESV2`, `_SECRETS_MANAGER`, `_API_GATEWAY`,
 * `_SERVICE_QUOTAS`, `_LAMBDA`, `_BEDROCK_RUNTIME`) point it at the local stack's account endpoint.
 * Only Get, Describe and List calls, and Converse for `--invoke`.
 */
export function awsAccountReader(options: AwsAccountReaderOptions): AccountReader {
  const config = {
    region: options.region,
    maxAttempts: 2,
    ...(options.profile === undefined ? {} : { profile: options.profile }),
  };
  const ssm = new SSMClient(config);
  const bedrock = new BedrockClient(config);
  const runtime = new BedrockRuntimeClient(config);
  const ses = new SESv2Client(config);
  const secrets = new SecretsManagerClient(config);
  const apiGateway = new APIGatewayClient(config);
  const quotas = new ServiceQuotasClient(config);
  const lambda = new LambdaClient(config);
  return {
    async parameter(name) {
      try {
        const { Parameter } = await ssm.send(new GetParameterCommand({ Name: name }));
        return Parameter?.Value === undefined
          ? undefined
          : { value: Parameter.Value, ...(Parameter.ARN === undefined ? {} : { arn: Parameter.ARN }) };
      } catch (error) {
        if (error instanceof ParameterNotFound) return undefined;
        throw error;
      }
    },
    async inferenceProfile(id) {
      try {
        const profile = await bedrock.send(
          new GetInferenceProfileCommand({ inferenceProfileIdentifier: id }),
        );
        return {
          id: profile.inferenceProfileId ?? id,
          status: profile.status ?? "UNKNOWN",
          modelArns: (profile.models ?? []).flatMap((model) =>
            model.modelArn === undefined ? [] : [model.modelArn],
          ),
        };
      } catch (error) {
        if (error instanceof BedrockNotFound) return undefined;
        throw error;
      }
    },
    async foundationModel(id) {
      try {
        const { modelDetails } = await bedrock.send(new GetFoundationModelCommand({ modelIdentifier: id }));
        if (modelDetails === undefined) return undefined;
        const lifecycle = modelDetails.modelLifecycle;
        return {
          modelId: modelDetails.modelId ?? id,
          ...(modelDetails.modelName === undefined ? {} : { name: modelDetails.modelName }),
          lifecycleStatus: lifecycle?.status ?? "UNKNOWN",
          ...(lifecycle?.legacyTime === undefined ? {} : { legacyTime: lifecycle.legacyTime }),
          ...(lifecycle?.endOfLifeTime === undefined ? {} : { endOfLifeTime: lifecycle.endOfLifeTime }),
        };
      } catch (error) {
        if (error instanceof BedrockNotFound) return undefined;
        throw error;
      }
    },
    async sesAccount() {
      const account = await ses.send(new GetAccountCommand({}));
      return {
        productionAccessEnabled: account.ProductionAccessEnabled === true,
        sendingEnabled: account.SendingEnabled !== false,
      };
    },
    async emailIdentity(name) {
      try {
        const identity = await ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }));
        return {
          type: identity.IdentityType ?? "UNKNOWN",
          verifiedForSending: identity.VerifiedForSendingStatus === true,
        };
      } catch (error) {
        if (error instanceof NotFoundException) return undefined;
        throw error;
      }
    },
    async secret(name) {
      try {
        const secret = await secrets.send(new DescribeSecretCommand({ SecretId: name }));
        return {
          arn: secret.ARN ?? name,
          ...(secret.DeletedDate === undefined ? {} : { deletedDate: secret.DeletedDate }),
          ...changed(secretChangedDate(secret)),
        };
      } catch (error) {
        if (error instanceof SecretNotFound) return undefined;
        throw error;
      }
    },
    async apiGatewayCloudWatchRoleArn() {
      const account = await apiGateway.send(new GetApiGatewayAccountCommand({}));
      return account.cloudwatchRoleArn === undefined || account.cloudwatchRoleArn === ""
        ? undefined
        : account.cloudwatchRoleArn;
    },
    async serviceQuotas(serviceCode) {
      const found = [];
      for await (const page of paginateListServiceQuotas({ client: quotas }, { ServiceCode: serviceCode })) {
        for (const quota of page.Quotas ?? []) {
          if (quota.QuotaName === undefined || quota.Value === undefined) continue;
          found.push({
            name: quota.QuotaName,
            value: quota.Value,
            ...(quota.QuotaCode === undefined ? {} : { code: quota.QuotaCode }),
          });
        }
      }
      return found;
    },
    async lambdaConcurrency() {
      const { AccountLimit } = await lambda.send(new GetAccountSettingsCommand({}));
      const concurrent = AccountLimit?.ConcurrentExecutions ?? 0;
      return {
        concurrentExecutions: concurrent,
        unreservedConcurrentExecutions: AccountLimit?.UnreservedConcurrentExecutions ?? concurrent,
      };
    },
    async converse(modelId, prompt, maxTokens) {
      const answer = await runtime.send(
        new ConverseCommand({
          modelId,
          messages: [{ role: "user", content: [{ text: prompt }] }],
          inferenceConfig: { maxTokens },
        }),
      );
      const usage = answer.usage;
      return {
        inputTokens: usage?.inputTokens ?? 0,
        outputTokens: usage?.outputTokens ?? 0,
        cacheReadTokens: usage?.cacheReadInputTokens ?? 0,
        cacheWriteTokens: usage?.cacheWriteInputTokens ?? 0,
        ...(answer.stopReason === undefined ? {} : { stopReason: answer.stopReason }),
        ...(answer.metrics?.latencyMs === undefined ? {} : { latencyMs: answer.metrics.latencyMs }),
      };
    },
  };
}

/**
 * The region the SDK would use (`AWS_REGION`, the profile's `region`), or undefined; and whether it
 * finds credentials, checked once so a shell without any gets one clear line instead of a failure
 * per check.
 */
export async function resolveSdkSettings(profile: string | undefined): Promise<{
  readonly region: string | undefined;
  readonly credentialsProblem: string | undefined;
}> {
  const client = new SSMClient(profile === undefined ? {} : { profile });
  let region: string | undefined;
  try {
    region = await client.config.region();
  } catch {
    region = undefined;
  }
  let credentialsProblem: string | undefined;
  try {
    await client.config.credentials();
  } catch (error) {
    credentialsProblem = error instanceof Error ? error.message : String(error);
  }
  client.destroy();
  return { region, credentialsProblem };
}

function changed(date: Date | undefined): { changedDate?: Date } {
  return date === undefined ? {} : { changedDate: date };
}
