// `goal-loops start` (and `npm start`, which is that command on this repository's own app): the whole
// stack on this machine, from a CDK app's cloud assembly. bin/goal-loops.ts loads it only when the
// command runs.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { GoalLoopsError } from "../lambdas/core/goal/errors";
import { type ModelQuota, ModelQuotaSchema } from "../lambdas/core/models/capacity/model-quota";
import { type LocalAccount, loadLocalAccountFile } from "../lib/local/account/local-account";
import { type BedrockUpstream, createBedrockUpstream } from "../lib/local/bedrock/bedrock-upstream";
import { availableFixtures, fixtureNameOf } from "../lib/local/bedrock/model-fixtures";
import { type LocalStack, startLocalStack } from "../lib/local/local-stack";
import { watchOutbox } from "../lib/local/storage/local-outbox";
import { type LocalSecrets, localSecrets } from "../lib/local/storage/local-secrets";
import { packageFile } from "../lib/package-files";

// The recorder's upstream (`--record`): the endpoint this shell names for Bedrock Runtime, read
// before anything here could mistake the stack's own local endpoint for it.
const userBedrockEndpoint = process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME || undefined;

/** `goal-loops start`'s flags, as bin/goal-loops.ts parses them. */
export interface StartFlags {
  readonly app?: string;
  readonly stack?: string;
  readonly openaiUrl: string;
  readonly record?: string;
  readonly port: number;
  readonly fixtures?: string;
  readonly model?: string;
  readonly stateDir: string;
  readonly inMemory: boolean;
  readonly rollback: boolean;
  readonly rollbackTo?: number;
  readonly retryIntervalMs: number;
  readonly config?: string;
  readonly account?: string;
  /** `--model-quota rpm=N[,tpm=M][,burst=S]`, as bin/goal-loops.ts read it. */
  readonly modelQuota?: { readonly rpm: number; readonly tpm?: number; readonly burst?: number };
}

/**
 * Where the app comes from: `--app` names a cloud assembly folder (run as it is) or a command that
 * synthesizes one (run by the project's CDK CLI); without it, the project's cdk.json app.
 */
function appSource(app: string | undefined): { cdkOutDir: string; synth: false } | { app?: string } {
  if (app === undefined) return {};
  const folder = path.resolve(app);
  if (existsSync(folder) && statSync(folder).isDirectory()) {
    if (!existsSync(path.join(folder, "manifest.json"))) {
      fail(`--app ${app} is a folder without manifest.json: give a cloud assembly (cdk.out) or a command`);
    }
    return { cdkOutDir: folder, synth: false };
  }
  return { app };
}

/** Starts the stack, prints where everything is, and stops it on Ctrl+C (SIGINT) or SIGTERM. */
export async function start(flags: StartFlags): Promise<void> {
  // The SDK clients this process builds (table creation) would warn that Node 20 support ends in 2027.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  if (flags.record !== undefined && fixtureNameOf(`scripted:${flags.record}`) === undefined) {
    fail(
      `--record '${flags.record}' cannot name a fixture: use letters, digits, '.', '_' and '-' (replayed as scripted:<name>)`,
    );
  }
  if (flags.inMemory && (flags.rollback || flags.rollbackTo !== undefined)) {
    // Versions are kept in the state folder: in memory there is only the synth being started.
    fail("--rollback needs the versions kept in a state folder: drop --in-memory (or pass --state-dir)");
  }
  const source = appSource(flags.app);
  if (flags.config !== undefined && "cdkOutDir" in source) {
    fail(
      "--config is what the app is synthesized with: give --app a command (or none), not a cdk.out folder",
    );
  }
  const projectDir = process.cwd();
  const { secrets, generated } = secretsOrExit();
  const account = accountOrExit(flags.account);
  const record = await recordingOrExit(flags.record);
  const modelQuota = flags.modelQuota === undefined ? undefined : modelQuotaOrExit(flags.modelQuota);
  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      projectDir,
      ...source,
      ...(flags.stack === undefined ? {} : { stack: flags.stack }),
      port: flags.port,
      ...(flags.fixtures === undefined ? {} : { fixturesDir: path.resolve(flags.fixtures) }),
      model: flags.model,
      stateDir: path.resolve(flags.stateDir),
      inMemory: flags.inMemory,
      ...(flags.rollback || flags.rollbackTo !== undefined
        ? { rollback: flags.rollbackTo === undefined ? {} : { to: flags.rollbackTo } }
        : {}),
      retryIntervalMs: flags.retryIntervalMs,
      secrets,
      openAi: {
        baseUrl: flags.openaiUrl,
        ...(process.env.OPENAI_API_KEY ? { apiKey: process.env.OPENAI_API_KEY } : {}),
      },
      ...(record === undefined ? {} : { record: { name: record.name, upstream: record.upstream } }),
      ...(flags.config === undefined ? {} : { configFile: path.resolve(flags.config) }),
      ...(account === undefined ? {} : { account }),
      ...(modelQuota === undefined ? {} : { modelQuota }),
    });
  } catch (error) {
    // Errors of ours (a bad cdk.out, a failed synth) and a taken port say all there is to say.
    if (error instanceof GoalLoopsError) fail(`${error.name}: ${error.message}`);
    if (error instanceof Error && Reflect.get(error, "code") === "EADDRINUSE") {
      fail(`Port ${flags.port} is in use: stop what holds it or pass --port <port> (0 picks a free one)`);
    }
    throw error;
  }
  printBanner(stack, flags, projectDir, { record, generated, secrets });
  stopOnSignals(stack);
}

/** `--model-quota` as a quota (tokens unlimited and a minute's burst unless given), or exit 1 naming the bad number. */
function modelQuotaOrExit(flag: NonNullable<StartFlags["modelQuota"]>): ModelQuota {
  const parsed = ModelQuotaSchema.safeParse({
    requestsPerMinute: flag.rpm,
    tokensPerMinute: flag.tpm ?? 1_000_000_000,
    ...(flag.burst === undefined ? {} : { burstSeconds: flag.burst }),
  });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const names: Record<string, string> = {
    requestsPerMinute: "rpm",
    tokensPerMinute: "tpm",
    burstSeconds: "burst",
  };
  fail(`--model-quota ${names[String(issue?.path[0])] ?? ""}: ${issue?.message ?? "is invalid"}`);
}

/** Stops with exit 1 and one line on stderr: what was wrong and what to do. */
function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/**
 * The project's example goals (examples/goals, as in this repository), else the ones the package
 * ships: the banner's `Next:` lines name one that completes.
 */
function exampleGoalsDir(projectDir: string): string {
  const own = path.join(projectDir, "examples", "goals");
  return existsSync(own) ? own : packageFile("examples", "goals");
}

function printBanner(
  stack: LocalStack,
  flags: StartFlags,
  projectDir: string,
  extras: {
    readonly record: Awaited<ReturnType<typeof recordingOrExit>>;
    readonly generated: readonly string[];
    readonly secrets: LocalSecrets;
  },
): void {
  const { record, generated, secrets } = extras;
  const relative = (p: string) => path.relative(process.cwd(), p) || ".";
  const goalsDir = exampleGoalsDir(projectDir);
  // The completing example first: it shows a goal reaching `completed` with evidence.
  const COMPLETING_EXAMPLE = "write-release-summary.json";
  const exampleGoals = existsSync(goalsDir) ? readdirSync(goalsDir).filter((f) => f.endsWith(".json")) : [];
  const exampleGoal = exampleGoals.includes(COMPLETING_EXAMPLE) ? COMPLETING_EXAMPLE : exampleGoals[0];
  const goalFile = relative(path.join(goalsDir, exampleGoal ?? "<goal>.json"));
  const fixtures = availableFixtures(stack.fixturesDir);
  const goalLoops = stack.model.goalLoops
    .map((found) => `; GoalLoops ${found.path}, goal-loops ${found.version}`)
    .join("");
  const machines = stack.model.stateMachines.map((m) => m.name).join(", ") || "none";
  console.log(
    [
      "",
      `goal-loops is running locally (stacks: ${stack.model.stackNames.join(", ")}${goalLoops})`,
      `  API             ${stack.apiUrl}`,
      `  DynamoDB        ${stack.endpoints.dynamodb} (${stack.storage === "in memory" ? "in memory" : `data in ${relative(stack.storage)}`})`,
      `  Step Functions  ${stack.endpoints.sfn} (${machines})`,
      `  EventBridge     ${stack.endpoints.eventbridge}`,
      `  Scheduler       ${stack.endpoints.scheduler} (goal deadlines)`,
      `  Bedrock         ${stack.endpoints.bedrockRuntime} (fixtures from ${relative(stack.fixturesDir)}: ${fixtures.join(", ") || "none"})`,
      ...(flags.modelQuota === undefined
        ? []
        : [
            `  Model quota     every model: ${flags.modelQuota.rpm} requests a minute${flags.modelQuota.tpm === undefined ? "" : `, ${flags.modelQuota.tpm} tokens`}; past it ThrottlingException, as Bedrock answers`,
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
            `  ${generated.map((name) => `${name}=${secretValue(secrets, name)}`).join("\n  ")}`,
          ]
        : []),
      "",
      "Ctrl+C stops it.",
    ].join("\n"),
  );
}

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

function secretValue(secrets: LocalSecrets, name: string): string {
  if (name === "SLACK_SIGNING_SECRET") return secrets.slackSigningSecret;
  if (name === "SLACK_BOT_TOKEN") return secrets.slackBotToken;
  return secrets.emailLinkSecret;
}

/** New outbox messages (approval requests for Slack and email, notify) are printed as they arrive. */
function stopOnSignals(stack: LocalStack): void {
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
}
