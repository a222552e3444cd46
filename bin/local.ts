#!/usr/bin/env node
// `npm start`: the whole stack on this machine, from cdk.out.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { GoalLoopsError } from "../lambdas/core/goal/errors";
import { type ModelQuota, ModelQuotaSchema } from "../lambdas/core/models/capacity/model-quota";
import { type LocalAccount, loadLocalAccountFile } from "../lib/local/account/local-account";
import { type BedrockUpstream, createBedrockUpstream } from "../lib/local/bedrock/bedrock-upstream";
import { availableFixtures, fixtureNameOf } from "../lib/local/bedrock/model-fixtures";
import { DEFAULT_OPENAI_URL } from "../lib/local/bedrock/openai-chat-client";
import { type LocalStack, startLocalStack } from "../lib/local/local-stack";
import { watchOutbox } from "../lib/local/storage/local-outbox";
import { type LocalSecrets, localSecrets } from "../lib/local/storage/local-secrets";

const projectDir = path.resolve(import.meta.dirname, "..");
// The recorder's upstream (`--record`): the endpoint this shell names for Bedrock Runtime, read
// before anything here could mistake the stack's own local endpoint for it.
const userBedrockEndpoint = process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME || undefined;
// The SDK clients this process builds (table creation) would warn that Node 20 support ends in 2027.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError(`'${value}' is not a port number (0-65535)`);
  }
  return port;
}

function parseMilliseconds(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0)
    throw new InvalidArgumentError(`'${value}' is not a whole number of milliseconds`);
  return ms;
}

function parseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`'${value}' is not a URL (e.g. http://127.0.0.1:11434/v1)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidArgumentError(`'${value}' is not an http(s) URL`);
  }
  return value;
}

function parseRecordingName(value: string): string {
  if (fixtureNameOf(`scripted:${value}`) === undefined) {
    throw new InvalidArgumentError(
      `'${value}' cannot name a fixture: use letters, digits, '.', '_' and '-' (replayed as scripted:<name>)`,
    );
  }
  return value;
}

/**
 * `--model-quota rpm=N[,tpm=M][,burst=S]`: a Bedrock quota for every model the local endpoint
 * answers (tokens and burst default to unlimited and a whole minute).
 */
function parseModelQuota(value: string): ModelQuota {
  const fields: Record<string, number> = {};
  for (const part of value.split(",")) {
    const match = /^\s*(rpm|tpm|burst)\s*=\s*(\d+)\s*$/.exec(part);
    if (match === null) {
      throw new InvalidArgumentError(`'${part}' is not rpm=N, tpm=N or burst=S (e.g. rpm=120,tpm=200000)`);
    }
    fields[match[1] ?? ""] = Number(match[2]);
  }
  if (fields.rpm === undefined) throw new InvalidArgumentError("needs rpm=N (requests per minute)");
  const parsed = ModelQuotaSchema.safeParse({
    requestsPerMinute: fields.rpm,
    tokensPerMinute: fields.tpm ?? 1_000_000_000,
    ...(fields.burst === undefined ? {} : { burstSeconds: fields.burst }),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = { requestsPerMinute: "rpm", tokensPerMinute: "tpm", burstSeconds: "burst" }[
      String(issue?.path[0]) as "requestsPerMinute"
    ];
    throw new InvalidArgumentError(`${flag ?? "quota"}: ${issue?.message ?? "is invalid"}`);
  }
  return parsed.data;
}

interface Flags {
  openaiUrl: string;
  record?: string;
  port: number;
  fixtures: string;
  model?: string;
  stateDir: string;
  inMemory: boolean;
  retryIntervalMs: number;
  config?: string;
  account?: string;
  modelQuota?: ModelQuota;
}

const program = new Command("local")
  .description(
    "Run goal-loops locally: DynamoDB, the state machines and Lambda bundles of cdk.out, and the API",
  )
  .option("--port <port>", "API port on 127.0.0.1", parsePort, 8787)
  .option(
    "--fixtures <dir>",
    "folder of model fixtures (model id scripted:<name> reads <dir>/<name>.json)",
    "examples/fixtures",
  )
  .option(
    "--model <id>",
    "model id for every role (replaces HEAVY_MODEL_ID and FAST_MODEL_ID), e.g. scripted:write-release-summary",
  )
  .option(
    "--openai-url <url>",
    "OpenAI-compatible API that openai:<model> ids call (Ollama, llama.cpp, vLLM, LM Studio); OPENAI_API_KEY is sent as a bearer token when set",
    parseUrl,
    DEFAULT_OPENAI_URL,
  )
  .option(
    "--record <name>",
    "send every model call to real Bedrock (your AWS credentials and region, or AWS_ENDPOINT_URL_BEDROCK_RUNTIME) and write the answers to <fixtures>/<name>.json, replayed offline as scripted:<name>",
    parseRecordingName,
  )
  .option(
    "--model-quota <quota>",
    "the account's Bedrock quota, enforced by the local endpoint for every model, e.g. rpm=120,tpm=200000[,burst=10]: past it, ThrottlingException as Bedrock answers; without it, the endpoint enforces the models.quotas the app was synthesized with",
    parseModelQuota,
  )
  .option("--state-dir <dir>", "where DynamoDB data is kept across restarts", ".goal-loops")
  .option("--in-memory", "keep nothing: DynamoDB in memory", false)
  .option("--retry-interval-ms <ms>", "what every state machine Retry waits locally", parseMilliseconds, 0)
  .option(
    "--config <file>",
    "the configuration file to synthesize with (models, approvals, http hosts …); default goal-loops.config.json",
  )
  .option(
    "--account <file>",
    "the AWS account `goal-loops preflight` finds at the account endpoint (bootstrap, models' lifecycle, SES, secrets); default: a fresh bootstrapped one",
  )
  .showHelpAfterError();

const flags = program.parse(process.argv).opts<Flags>();
const { secrets, generated } = secretsOrExit();
const account = accountOrExit(flags.account);
const record = await recordingOrExit(flags.record);
let stack: LocalStack;
try {
  stack = await startLocalStack({
    projectDir,
    port: flags.port,
    fixturesDir: path.resolve(flags.fixtures),
    model: flags.model,
    stateDir: path.resolve(flags.stateDir),
    inMemory: flags.inMemory,
    retryIntervalMs: flags.retryIntervalMs,
    secrets,
    openAi: {
      baseUrl: flags.openaiUrl,
      ...(process.env.OPENAI_API_KEY ? { apiKey: process.env.OPENAI_API_KEY } : {}),
    },
    ...(record === undefined ? {} : { record: { name: record.name, upstream: record.upstream } }),
    ...(flags.config === undefined ? {} : { configFile: path.resolve(flags.config) }),
    ...(account === undefined ? {} : { account }),
    ...(flags.modelQuota === undefined ? {} : { modelQuota: flags.modelQuota }),
  });
} catch (error) {
  // Errors of ours (a bad cdk.out, a failed synth) and a taken port say all there is to say.
  if (error instanceof GoalLoopsError) console.error(`${error.name}: ${error.message}`);
  else if (error instanceof Error && Reflect.get(error, "code") === "EADDRINUSE") {
    console.error(
      `Port ${flags.port} is in use: stop what holds it or pass --port <port> (0 picks a free one)`,
    );
  } else throw error;
  process.exit(1);
}

const relative = (p: string) => path.relative(process.cwd(), p) || ".";
const goalsDir = path.join(projectDir, "examples", "goals");
// The completing example first: it shows a goal reaching `completed` with evidence.
const COMPLETING_EXAMPLE = "write-release-summary.json";
const exampleGoals = existsSync(goalsDir) ? readdirSync(goalsDir).filter((f) => f.endsWith(".json")) : [];
const exampleGoal = exampleGoals.includes(COMPLETING_EXAMPLE) ? COMPLETING_EXAMPLE : exampleGoals[0];
const goalFile = relative(path.join(goalsDir, exampleGoal ?? "<goal>.json"));
const fixtures = availableFixtures(stack.fixturesDir);
const machines = stack.model.stateMachines.map((m) => m.name).join(", ") || "none";
console.log(
  [
    "",
    `goal-loops is running locally (stacks: ${stack.model.stackNames.join(", ")})`,
    `  API             ${stack.apiUrl}`,
    `  DynamoDB        ${stack.endpoints.dynamodb} (${stack.storage === "in memory" ? "in memory" : `data in ${relative(stack.storage)}`})`,
    `  Step Functions  ${stack.endpoints.sfn} (${machines})`,
    `  EventBridge     ${stack.endpoints.eventbridge}`,
    `  Scheduler       ${stack.endpoints.scheduler} (goal deadlines)`,
    `  Bedrock         ${stack.endpoints.bedrockRuntime} (fixtures from ${relative(stack.fixturesDir)}: ${fixtures.join(", ") || "none"})`,
    ...(flags.modelQuota === undefined
      ? []
      : [
          `  Model quota     every model: ${flags.modelQuota.requestsPerMinute} requests and ${flags.modelQuota.tokensPerMinute} tokens per minute, ${flags.modelQuota.burstSeconds} s at once; past it ThrottlingException`,
        ]),
    `  Model           ${flags.model === undefined ? "each goal's own, else each function's HEAVY_MODEL_ID / FAST_MODEL_ID" : `${flags.model} answers every call, also of goals that name a model`}`,
    `  OpenAI models   openai:<model> calls go to ${flags.openaiUrl}${process.env.OPENAI_API_KEY ? " (with OPENAI_API_KEY)" : ""}`,
    ...(record === undefined
      ? []
      : [
          `  Recording       every model call goes to Bedrock Runtime at ${record.upstreamDescription}; answers written to ${relative(path.join(stack.fixturesDir, `${record.name}.json`))} (replay: scripted:${record.name})`,
        ]),
    `  AWS account     ${stack.endpoints.account} (what goal-loops preflight reads: ${flags.account === undefined ? "a fresh, bootstrapped account" : relative(path.resolve(flags.account))})`,
    "",
    "Next:",
    `  curl -s -X POST ${stack.apiUrl}/goals -H 'content-type: application/json' --data @${goalFile}`,
    `  curl -s ${stack.apiUrl}/goals                       # snapshots; /goals/<goalId>/events for the log`,
    `  npx goal-loops run ${goalFile}   # live progress in this terminal (the example names its scripted model)`,
    "",
    `  curl -s ${stack.apiUrl}/_local/outbox                # what Slack, email and notify would have sent`,
    `  AWS_ENDPOINT_URL=${stack.endpoints.account} AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local \\`,
    "    npx goal-loops preflight --region eu-west-1   # the deploy checklist, against the account above",
    ...(generated.length > 0
      ? [
          "",
          "Generated for this run (set them to keep them):",
          `  ${generated.map((name) => `${name}=${secretValue(name)}`).join("\n  ")}`,
        ]
      : []),
    "",
    "Ctrl+C stops it.",
  ].join("\n"),
);

/**
 * The recorder's upstream for `--record`, its region (or endpoint) resolved now, so a shell with
 * no region fails here and not on the first model call.
 */
async function recordingOrExit(
  name: string | undefined,
): Promise<{ name: string; upstream: BedrockUpstream; upstreamDescription: string } | undefined> {
  if (name === undefined) return undefined;
  const upstream = createBedrockUpstream(
    userBedrockEndpoint === undefined ? {} : { endpoint: userBedrockEndpoint },
  );
  try {
    return { name, upstream, upstreamDescription: await upstream.describe() };
  } catch (error) {
    console.error(
      `--record needs an AWS region for Bedrock Runtime (set AWS_REGION or a profile's region): ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  }
}

/** The `--account` file's account, or exit 1 naming what in it is wrong. */
function accountOrExit(file: string | undefined): LocalAccount | undefined {
  if (file === undefined) return undefined;
  try {
    return loadLocalAccountFile(path.resolve(file));
  } catch (error) {
    if (!(error instanceof Error) || error.name !== "ConfigError") throw error;
    console.error(`${error.name}: ${error.message}`);
    process.exit(1);
  }
}

/** The doors' secrets, or exit 1 saying which variable is unusable and why (a short EMAIL_LINK_SECRET). */
function secretsOrExit(): { secrets: LocalSecrets; generated: string[] } {
  try {
    return localSecrets(process.env);
  } catch (error) {
    if (!(error instanceof GoalLoopsError)) throw error;
    console.error(`${error.name}: ${error.message}`);
    process.exit(1);
  }
}

function secretValue(name: string): string {
  if (name === "SLACK_SIGNING_SECRET") return secrets.slackSigningSecret;
  if (name === "SLACK_BOT_TOKEN") return secrets.slackBotToken;
  return secrets.emailLinkSecret;
}

// New outbox messages (approval requests for Slack and email, notify) are printed as they arrive.
const stopWatchingOutbox = watchOutbox(stack.readOutbox, (entry) =>
  console.log(`outbox ${entry.channel} for ${entry.goalId}: ${JSON.stringify(entry.message)}`),
);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  stopWatchingOutbox();
  console.log(`\n${signal}: stopping…`);
  stack.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.once("SIGINT", () => shutdown("SIGINT"));
process.once("SIGTERM", () => shutdown("SIGTERM"));
