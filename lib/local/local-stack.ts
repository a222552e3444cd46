import { existsSync } from "node:fs";
import path from "node:path";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoDbGoalStore } from "../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { authorizeBearer } from "../../lambdas/adapters/oidc/authorize-bearer";
import { createJwtVerifier, type JwtVerifier } from "../../lambdas/adapters/oidc/jwt-verifier";
import {
  MODEL_QUOTAS_ENV,
  type ModelQuota,
  type ModelQuotas,
  ModelQuotasSchema,
} from "../../lambdas/core/models/capacity/model-quota";
import {
  DEFAULT_TENANTS_SETTINGS,
  TENANTS_ENV,
  type TenantsSettings,
  TenantsSettingsSchema,
} from "../../lambdas/core/tenants/tenants-settings";
import { API_VERSION } from "../../lambdas/handlers/api/contract/openapi-document";
import { GoalLoopsClient } from "../client/goal-loops-client";
import { serveMcpRequest } from "../mcp/mcp-http";
import { packageFile } from "../package-files";
import { startAccountEndpoint } from "./account/account-endpoint";
import { type LocalAccount, localAccount } from "./account/local-account";
import { LOCAL_IDENTITY, startApiServer } from "./api/api-server";
import { consoleFile } from "./api/console-assets";
import { createLocalIssuer, type LocalIssuer } from "./api/local-issuer";
import type { ObservedResponse } from "./api/openapi-response-check";
import { type BedrockEndpoint, startBedrockEndpoint } from "./bedrock/bedrock-endpoint";
import type { BedrockUpstream } from "./bedrock/bedrock-upstream";
import type { OpenAiServer } from "./bedrock/openai-chat-client";
import { readCdkProject } from "./cdk-out/app-sources";
import { ensureSynthesized } from "./cdk-out/ensure-synthesized";
import { loadVersionedAssembly } from "./cdk-out/versioned-assembly";
import { LOCAL_STEP_FUNCTIONS_ROUTE } from "./cli/version-commands";
import { type EventBridgeEndpoint, startEventBridgeEndpoint } from "./eventbridge/eventbridge-endpoint";
import { type LambdaEndpoint, startLambdaEndpoint } from "./lambda/lambda-endpoint";
import { LambdaHost } from "./lambda/lambda-host";
import type { LogLine } from "./lambda/lambda-sandbox";
import { withMcpCredentials } from "./lambda/mcp-credentials";
import { type SchedulerEndpoint, startSchedulerEndpoint } from "./scheduler/scheduler-endpoint";
import {
  type CloudAssemblyModel,
  type FunctionSpec,
  type JsonValue,
  LOCAL_ENVIRONMENT,
} from "./shared/cloud-assembly-model";
import { CloudAssemblyError } from "./shared/errors";
import { parseJson } from "./shared/json";
import { reattachGoals } from "./step-functions/reattach-goals";
import { startSfnEndpoint } from "./step-functions/sfn-endpoint";
import { StateMachineRunner } from "./step-functions/state-machine-runner";
import { createTables, startLocalDynamo } from "./storage/dynamo";
import { type GoalChangeFeed, startGoalChangeFeed } from "./storage/goal-change-feed";
import { type LocalOutboxEntry, localOutboxReader } from "./storage/local-outbox";
import { type LocalSecrets, secretEnvironment } from "./storage/local-secrets";
import { localStoreClient, payloadSettingsOf } from "./storage/local-store-client";
import { type S3Endpoint, startS3Endpoint } from "./storage/s3-endpoint";

export interface LocalStackOptions {
  /** The CDK project folder (its cdk.json says what the app is and what it is made of). */
  readonly projectDir: string;
  /**
   * The cloud assembly to run.
   * @default - cdk.json's `output` (else `<projectDir>/cdk.out`), synthesized first when missing or
   * older than the app's sources
   */
  readonly cdkOutDir?: string;
  /**
   * The command that synthesizes the app (`--app '<command>'`), instead of cdk.json's `app`.
   * @default - cdk.json's `app`
   */
  readonly app?: string;
  /**
   * The stack to run (`--stack`).
   * @default - the stack that holds the app's GoalLoops construct, found by its metadata
   */
  readonly stack?: string;
  /**
   * The configuration file to synthesize with (`--config`).
   * @default - the project's goal-loops.config.json
   */
  readonly configFile?: string;
  /** Whether to synthesize a stale or missing cdk.out first. @default true */
  readonly synth?: boolean;
  /** API port on 127.0.0.1; 0 picks a free one. @default 8787 */
  readonly port?: number;
  /**
   * Folder of `scripted:<name>` model fixtures.
   * @default `<projectDir>/examples/fixtures`, else the examples' fixtures the package ships
   */
  readonly fixturesDir?: string;
  /**
   * The model of every call (`--model`, e.g. `scripted:write-release-summary` or `openai:llama3.1`):
   * replaces HEAVY_MODEL_ID and FAST_MODEL_ID on the functions that have them (a variable of the
   * same name in `environment` still wins), and the local Bedrock endpoint answers with it the
   * calls of goals that name a model of their own.
   */
  readonly model?: string;
  /**
   * The OpenAI-compatible server `openai:<model>` calls go to (`--openai-url`, `OPENAI_API_KEY`).
   * @default - Ollama's http://127.0.0.1:11434/v1
   */
  readonly openAi?: OpenAiServer;
  /**
   * Record every model call (`--record <name>`): sent to `upstream` (real Bedrock), the answers
   * written to `<fixturesDir>/<name>.json` for `scripted:<name>` to replay.
   */
  readonly record?: { readonly name: string; readonly upstream: BedrockUpstream };
  /** Where DynamoDB data and S3 objects are kept across restarts. @default `<projectDir>/.goal-loops` */
  readonly stateDir?: string;
  /**
   * Point new goals back at an older version kept in the state folder (`--rollback [--to N]`): at
   * version `to`, else at the one before the version they start on now. @default no rollback
   */
  readonly rollback?: { readonly to?: number };
  /** Keep nothing: DynamoDB in memory, S3 objects in a temporary folder. @default false */
  readonly inMemory?: boolean;
  /** What every Retry waits locally, in ms; null keeps the definitions' intervals. @default 0 */
  readonly retryIntervalMs?: number | null;
  /** Slack and email secrets the doors use locally. @default from the environment, or generated */
  readonly secrets?: LocalSecrets;
  /**
   * Makes `notify` really send, to these endpoints instead of Slack and SES (local fakes, in
   * tests): the Slack Web API base URL (`…/api/`) and the SES v2 endpoint. Webhooks go to the URLs
   * the configuration's `notify.channels` name. Approval requests still go to the outbox.
   *
   * @default - `notify` records its messages in the outbox and sends nothing
   */
  readonly notifyEndpoints?: { readonly slackApiUrl: string; readonly sesv2: string };
  /**
   * The AWS account the account endpoint describes to `goal-loops preflight` (`--account <file>`).
   *
   * @default - a fresh account, bootstrapped, every catalog model as the catalog says (local-account.ts)
   */
  readonly account?: LocalAccount;
  /**
   * The account's Bedrock quota, which the local endpoint enforces for every model it answers
   * (`--model-quota`), instead of the `models.quotas` the app was synthesized with.
   * @default - the synthesized `models.quotas`
   */
  readonly modelQuota?: ModelQuota;
  /** More variables for every function, over its own. */
  readonly environment?: Readonly<Record<string, string>>;
  /** Runtime messages (synth, executions). @default console.log */
  readonly log?: (line: string) => void;
  /** Sees every answer of the API's functions (the end-to-end suite checks them against the OpenAPI document). */
  readonly onApiResponse?: (answer: ObservedResponse) => void;
  /** The functions' own output. @default each line on stdout/stderr, prefixed with the function name */
  readonly functionLog?: LogLine;
}

export interface LocalEndpoints {
  readonly api: string;
  readonly dynamodb: string;
  readonly sfn: string;
  readonly bedrockRuntime: string;
  readonly eventbridge: string;
  readonly scheduler: string;
  /** S3: the goal store's payload bucket (large files and items). */
  readonly s3: string;
  /** Lambda Invoke: functions calling other functions (Lambda tools). */
  readonly lambda: string;
  /**
   * The read-only control plane `goal-loops preflight` checks (SSM, Bedrock, SES v2, Secrets
   * Manager, API Gateway): `AWS_ENDPOINT_URL=<this> npx goal-loops preflight --region R`.
   */
  readonly account: string;
}

export interface LocalStack {
  readonly apiUrl: string;
  /**
   * The local OIDC issuer (`<api>/_local/oidc`): `mint` gives a signed token for a tenant and a
   * user, which the local API checks as the deployed JWT authorizer would.
   */
  readonly issuer: LocalIssuer;
  readonly endpoints: LocalEndpoints;
  readonly model: CloudAssemblyModel;
  /** Executions (status, output, transitions) and task tokens. */
  readonly executions: StateMachineRunner;
  readonly lambdas: LambdaHost;
  /** Model calls made, per (goal, role, call). */
  readonly bedrock: BedrockEndpoint;
  readonly events: EventBridgeEndpoint;
  /** EventBridge Scheduler: goal deadlines (one-time schedules that put an event on the bus). */
  readonly scheduler: SchedulerEndpoint;
  /** S3 (s3rver) with the template's buckets. */
  readonly s3: S3Endpoint;
  /** Lambda Invoke over the local functions (the acting functions call Lambda tools through it). */
  readonly lambdaEndpoint: LambdaEndpoint;
  /** Every goal's outbox: what Slack, email and `notify` would have sent (also `GET /_local/outbox`). */
  readOutbox(): Promise<LocalOutboxEntry[]>;
  /** Where DynamoDB keeps its data: a folder, or `in memory`. */
  readonly storage: string;
  readonly fixturesDir: string;
  /** Stops executions, sandboxes and servers. Safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * The whole stack on this machine from cdk.out: DynamoDB (dynalite), S3 (s3rver), the state machines
 * (aws-local-stepfunctions), every Lambda bundle in sandboxes of its own, local Step Functions,
 * EventBridge and Bedrock (fixtures) endpoints, and the REST API on 127.0.0.1.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const { projectDir, log = console.log } = options;
  const cdkOutDir = path.resolve(projectDir, options.cdkOutDir ?? readCdkProject(projectDir).outDir);
  if (options.synth ?? true) {
    await ensureSynthesized({
      projectDir,
      outDir: cdkOutDir,
      log,
      ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
      ...(options.app === undefined ? {} : { app: options.app }),
    });
  }
  const stateDir = options.inMemory ? undefined : path.resolve(projectDir, options.stateDir ?? ".goal-loops");
  // The newest synth, and the versions the state folder keeps: goals pinned to one run its code.
  const versioned = loadVersionedAssembly({
    outDir: cdkOutDir,
    log,
    ...(options.stack === undefined ? {} : { stack: options.stack }),
    ...(stateDir === undefined ? {} : { stateDir }),
    ...(options.rollback === undefined ? {} : { rollback: options.rollback }),
  });
  const { model } = versioned;
  const fixturesDir = path.resolve(projectDir, options.fixturesDir ?? defaultFixturesDir(projectDir));

  // Everything started so far, stopped in reverse order on stop() or on a failed start.
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    // Writes reach the change feed once it is up (it reads the goal table through the store client).
    let changeFeed: GoalChangeFeed | undefined;
    const dynamo = await startLocalDynamo({
      ...(stateDir === undefined ? {} : { stateDir: path.join(stateDir, "dynamodb") }),
      onWrite: (write) => changeFeed?.noticeWrite(write),
    });
    stops.push(dynamo.stop);
    await createTables(dynamo.endpoint, model.tables);
    // The payload bucket's objects are kept beside DynamoDB's data: items point at them.
    const s3 = await startS3Endpoint({
      buckets: model.buckets.map((bucket) => bucket.bucketName),
      ...(stateDir === undefined ? {} : { directory: path.join(stateDir, "s3") }),
    });
    stops.push(s3.close);
    const storeClient = localStoreClient({ dynamodb: dynamo.endpoint, s3: s3.url }, payloadSettingsOf(model));
    stops.push(async () => storeClient.destroy());
    changeFeed = await startGoalChangeFeed({ lastEventSeq: lastEventSeqReader(storeClient, model) });
    stops.push(changeFeed.close);

    // The runner and endpoints call functions through the host, which needs their URLs first.
    let lambdas: LambdaHost | undefined;
    const invoke = (functionRef: string, payload: JsonValue) => {
      if (lambdas === undefined) throw new Error("the local stack is still starting");
      return lambdas.invoke(functionRef, payload);
    };
    const runner = new StateMachineRunner({
      stateMachines: model.stateMachines,
      versions: versioned.stateMachineVersions,
      aliases: versioned.aliases,
      onAliasUpdated: versioned.onAliasUpdated,
      onVersionDeleted: versioned.onVersionDeleted,
      invokeFunction: invoke,
      retryIntervalMs: options.retryIntervalMs === undefined ? 0 : options.retryIntervalMs,
      log,
      // A restart on the same state folder skips validating the definitions the last one accepted.
      ...(stateDir === undefined
        ? {}
        : { validatedDefinitionsFile: path.join(stateDir, "validated-definitions.json") }),
    });
    const sfn = await startSfnEndpoint(runner);
    stops.push(sfn.close);
    const events = await startEventBridgeEndpoint({
      eventBuses: model.eventBuses,
      rules: model.eventRules,
      invokeFunction: invoke,
      startExecution: (arn, input) => runner.startExecution(arn, input),
    });
    stops.push(events.close);
    // Kept beside DynamoDB's data: a restart re-arms the deadlines of the goals it keeps.
    const scheduler = await startSchedulerEndpoint({
      putEvent: (event) => events.put({ ...event }),
      ...(stateDir === undefined ? {} : { stateFile: path.join(stateDir, "schedules.json") }),
      log,
    });
    stops.push(scheduler.close);
    const bedrock = await startBedrockEndpoint({
      fixturesDir,
      log,
      quotas: {
        byModel: synthesizedQuotas(model),
        ...(options.modelQuota === undefined ? {} : { everyModel: options.modelQuota }),
      },
      ...(options.model === undefined ? {} : { modelOverride: options.model }),
      ...(options.openAi === undefined ? {} : { openAi: options.openAi }),
      ...(options.record === undefined ? {} : { record: options.record }),
    });
    stops.push(bedrock.close);
    if (options.record !== undefined) stops.push(async () => options.record?.upstream.close());
    // Functions invoking functions (Lambda tools) reach the host through this endpoint.
    const lambdaEndpoint = await startLambdaEndpoint({
      invokeFunction: invoke,
      functionExists: (functionRef) => lambdas?.find(functionRef) !== undefined,
      log,
    });
    stops.push(lambdaEndpoint.close);
    const accountEndpoint = await startAccountEndpoint({ account: options.account ?? localAccount() });
    stops.push(accountEndpoint.close);

    // The API listens first: its URL goes into the functions' environment (links in emails).
    const readOutbox = localOutboxReader(
      storeClient,
      model.tables.map((table) => table.tableName),
    );
    // The local OIDC issuer and its verifier: bearer tokens are checked by the deployed code.
    const issuer = await createLocalIssuer();
    const tenants = synthesizedTenants(model);
    // The issuer and /mcp (which calls the API over HTTP as its caller would) need the URL the server listens on.
    let apiUrl = "";
    let verify: JwtVerifier | undefined;
    const api = await startApiServer({
      routes: model.apiRoutes,
      localHandler: (request) => issuer.handle(apiUrl, request),
      authorizeBearer: (authorization) => {
        verify ??= createJwtVerifier(issuer.jwtSettings(apiUrl));
        return authorizeBearer(verify, tenants, authorization);
      },
      invokeFunction: invoke,
      invokeStreamingFunction: (functionArn, event, onChunk, signal) => {
        if (lambdas === undefined) throw new Error("the local stack is still starting");
        return lambdas.invokeStream(functionArn, event, onChunk, signal);
      },
      port: options.port ?? 8787,
      localRoutes: {
        "/_local/outbox": async () => ({ items: await readOutbox() }),
        // Where `goal-loops versions` and `rollback` find the state machines and their versions.
        [LOCAL_STEP_FUNCTIONS_ROUTE]: async () => ({
          endpoint: sfn.url,
          stateMachineArns: runner.stateMachineArns(),
        }),
      },
      onError: (message, error) => log(error === undefined ? message : `${message}: ${errorText(error)}`),
      // The web console, built from console/ on its first request.
      pages: consoleFile,
      rawRoutes: {
        "/mcp": (req, res, body) =>
          serveMcpRequest(req, res, body, {
            clientFor: (authorization) => mcpClient(apiUrl, authorization),
            version: API_VERSION,
          }),
      },
      ...(options.onApiResponse === undefined ? {} : { onResponse: options.onApiResponse }),
    });
    stops.push(api.close);
    apiUrl = api.url;

    const host = new LambdaHost({
      functions: [...model.functions, ...versioned.functionVersions].map((fn) =>
        withMcpCredentials(withLocalModels(withLocalTenant(fn), options.model)),
      ),
      endpoints: {
        dynamodb: dynamo.endpoint,
        sfn: sfn.url,
        bedrockRuntime: bedrock.url,
        eventbridge: events.url,
        scheduler: scheduler.url,
        s3: s3.url,
        lambda: lambdaEndpoint.url,
      },
      environmentOverrides: {
        // Slack and email messages go to the outbox (GET /_local/outbox) instead of Slack and SES;
        // the doors' secrets come from the environment instead of Secrets Manager.
        NOTIFY_DELIVERY: "outbox",
        PUBLIC_API_URL: `${api.url}/`,
        // The long poll and the event stream wake on the runtime's change feed instead of polling.
        GOAL_CHANGE_FEED_URL: changeFeed.url,
        // No CloudWatch here: the goal metrics' EMF lines would only flood the function log.
        POWERTOOLS_METRICS_DISABLED: "true",
        // A rollback reaches the very next goal: the API asks the alias afresh every time.
        LIVE_ALIAS_CACHE_MS: "0",
        ...secretEnvironment(options.secrets),
        ...notifyEnvironment(options.notifyEndpoints),
        ...options.environment,
      },
      ...(options.functionLog === undefined ? {} : { log: options.functionLog }),
    });
    lambdas = host;
    stops.push(() => host.close());
    // Runs stop before their sandboxes do: a task cut off mid-invocation would otherwise fail the run.
    stops.push(() => runner.close());

    // Goals that were running or waiting when the last stack stopped get a new run.
    if (!options.inMemory) await reattachGoals({ client: storeClient, model, runner, log });

    let stopped: Promise<void> | undefined;
    return {
      apiUrl: api.url,
      issuer,
      endpoints: {
        api: api.url,
        dynamodb: dynamo.endpoint,
        sfn: sfn.url,
        bedrockRuntime: bedrock.url,
        eventbridge: events.url,
        scheduler: scheduler.url,
        s3: s3.url,
        lambda: lambdaEndpoint.url,
        account: accountEndpoint.url,
      },
      model,
      executions: runner,
      lambdas: host,
      readOutbox,
      bedrock,
      events,
      scheduler,
      s3,
      lambdaEndpoint,
      storage: dynamo.storage,
      fixturesDir,
      stop: () => {
        stopped ??= stopAll();
        return stopped;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * The project's own fixtures (`examples/fixtures`, as in this repository), else the examples'
 * fixtures the package ships, so `scripted:write-release-summary` answers in any project.
 */
function defaultFixturesDir(projectDir: string): string {
  const own = path.join(projectDir, "examples", "fixtures");
  return existsSync(own) ? own : packageFile("examples", "fixtures");
}

/** The goal's last event seq from whichever of the stack's goal tables holds it. */
function lastEventSeqReader(
  client: DynamoDBDocumentClient,
  model: CloudAssemblyModel,
): (goalId: string) => Promise<number | undefined> {
  const tableNames = [...new Set(model.functions.flatMap((fn) => fn.environment.GOAL_TABLE_NAME ?? []))];
  const stores = tableNames.map((tableName) => new DynamoDbGoalStore({ client, tableName }));
  return async (goalId) => {
    for (const store of stores) {
      const found = await store.getGoal(goalId);
      if (found !== undefined) return found.record.lastEventSeq;
    }
    return undefined;
  };
}

/** The variables that make `notify` send to `endpoints` (see LocalStackOptions.notifyEndpoints). */
function notifyEnvironment(endpoints: LocalStackOptions["notifyEndpoints"]): Record<string, string> {
  if (endpoints === undefined) return {};
  return {
    NOTIFY_TOOL_DELIVERY: "send",
    SLACK_API_URL: endpoints.slackApiUrl,
    AWS_ENDPOINT_URL_SESV2: endpoints.sesv2,
  };
}

/**
 * The Slack door's tenant, when it is the deploying account (the default): locally that account
 * reads `LOCAL_ENVIRONMENT.account`, while the local API's callers are tenant `local`
 * (`LOCAL_IDENTITY`), so the door is bound to theirs, as deployed it is bound to the callers
 * signing with the deploying account's credentials. A tenant the configuration names stays.
 */
function withLocalTenant(fn: FunctionSpec): FunctionSpec {
  if (fn.environment.SLACK_TENANT_ID !== LOCAL_ENVIRONMENT.account) return fn;
  return { ...fn, environment: { ...fn.environment, SLACK_TENANT_ID: LOCAL_IDENTITY.accountId } };
}

/**
 * Model ids only the local runtime answers (DESIGN §7): fixtures and models of an OpenAI-compatible
 * server. Added to the allow-lists of the local functions only: synth refuses them in a deployed
 * stack's configuration (they are not Bedrock model ids), so no deployed stack admits them.
 */
const LOCAL_MODEL_PATTERNS = ["scripted:*", "openai:*", "local:*"];

/**
 * A function's model variables when run locally, changed only where the function has them (as
 * deployed): `--model` replaces both tiers, and an allow-list a goal's `models` is checked against
 * (ALLOWED_MODEL_IDS, the goals API's) also admits local model ids.
 */
function withLocalModels(fn: FunctionSpec, modelId: string | undefined): FunctionSpec {
  const { ALLOWED_MODEL_IDS: allowed, HEAVY_MODEL_ID: heavy } = fn.environment;
  const withLocal = (list: string) =>
    [...new Set([...list.split(","), ...LOCAL_MODEL_PATTERNS])].filter((id) => id !== "").join(",");
  return {
    ...fn,
    environment: {
      ...fn.environment,
      ...(allowed === undefined ? {} : { ALLOWED_MODEL_IDS: withLocal(allowed) }),
      ...(modelId === undefined || heavy === undefined
        ? {}
        : { HEAVY_MODEL_ID: modelId, FAST_MODEL_ID: modelId }),
    },
  };
}

/** An error as one log line's tail: its stack when it has one (where it failed is what helps). */
function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * The `tenants` the app was synthesized with, as the goals API reads them (TENANTS): the local
 * bearer check refuses a token of a tenant the deployment does not serve, as the authorizer would.
 */
function synthesizedTenants(model: CloudAssemblyModel): TenantsSettings {
  const value = model.functions.find((fn) => fn.environment[TENANTS_ENV] !== undefined)?.environment[
    TENANTS_ENV
  ];
  if (value === undefined) return DEFAULT_TENANTS_SETTINGS;
  const parsed = TenantsSettingsSchema.safeParse(parseJson(value));
  if (!parsed.success) throw new CloudAssemblyError(`${TENANTS_ENV} is not tenants: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * The `models.quotas` the app was synthesized with, as its model-calling functions read them
 * (MODEL_QUOTAS): the local endpoint enforces them as the account's own, so the governor and the
 * endpoint agree as they would on a well-configured account.
 */
function synthesizedQuotas(model: CloudAssemblyModel): ModelQuotas {
  const set = model.functions.find((fn) => fn.environment[MODEL_QUOTAS_ENV] !== undefined);
  const value = set?.environment[MODEL_QUOTAS_ENV];
  if (value === undefined) return {};
  const parsed = ModelQuotasSchema.safeParse(parseJson(value));
  if (!parsed.success) {
    throw new CloudAssemblyError(
      `${set?.functionName}'s ${MODEL_QUOTAS_ENV} is not models.quotas: ${parsed.error.message}`,
    );
  }
  return parsed.data;
}

/**
 * The client an `/mcp` request calls the API with: the local API, with the caller's bearer token
 * passed on (a JWT of the stack's issuer) and nothing else; locally an unsigned call is the one
 * local tenant, exactly as the same caller's HTTP request is.
 */
function mcpClient(apiUrl: string, authorization: string | undefined): GoalLoopsClient {
  const token = /^Bearer (\S+)$/i.exec(authorization ?? "")?.[1];
  return new GoalLoopsClient(apiUrl, {
    auth: token === undefined ? { kind: "none" } : { kind: "bearer", token },
  });
}
