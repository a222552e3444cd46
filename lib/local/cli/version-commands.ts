import type { LambdaClient } from "@aws-sdk/client-lambda";
import type { SFNClient } from "@aws-sdk/client-sfn";
import { type Command, Option } from "commander";
import { LOCAL_ENVIRONMENT } from "../shared/cloud-assembly-model";
import { profileOption, regionOption } from "./api-target";

/** Where `versions` and `rollback` act: the local stack on `port`, or a deployed stack (`--stack`). */
interface VersionTarget {
  readonly port: number;
  /** A deployed stack's name: its state machines are `<stack>-<pattern>`. */
  readonly stack?: string;
  readonly profile?: string;
  readonly region?: string;
}

export interface VersionCommandsIo {
  readonly write: (line: string) => void;
  readonly log: (line: string) => void;
  readonly portOption: () => Option;
}

/** The local stack's route that says where its Step Functions endpoint is (local-stack.ts). */
export const LOCAL_STEP_FUNCTIONS_ROUTE = "/_local/step-functions";

/**
 * The Step Functions client and the stack's state machines: the deployed stack's through the
 * caller's credentials, or the local stack's through the endpoint it names. Undefined, with the
 * reason on stderr, when neither answers.
 */
async function stepFunctionsOf(
  target: VersionTarget,
  log: (line: string) => void,
): Promise<{ client: SFNClient; stateMachineArns: string[]; lambda?: LambdaClient } | undefined> {
  const { SFNClient } = await import("@aws-sdk/client-sfn");
  if (target.stack !== undefined) {
    const [{ defaultProvider }, { stackStateMachines }, { LambdaClient }] = await Promise.all([
      import("@aws-sdk/credential-provider-node"),
      import("./deployed-versions"),
      import("@aws-sdk/client-lambda"),
    ]);
    const config = {
      ...(target.region === undefined ? {} : { region: target.region }),
      credentials: defaultProvider(target.profile === undefined ? {} : { profile: target.profile }),
    };
    const client = new SFNClient(config);
    const stateMachineArns = await stackStateMachines(client, target.stack);
    if (stateMachineArns.length === 0) {
      log(`No state machines named ${target.stack}-… in this account and region (check --stack, --region)`);
      return undefined;
    }
    // Deployed, each deploy also published a version of every function: --prune removes those too.
    return { client, stateMachineArns, lambda: new LambdaClient(config) };
  }
  const answer = await fetch(`http://127.0.0.1:${target.port}${LOCAL_STEP_FUNCTIONS_ROUTE}`).catch(
    () => undefined,
  );
  if (answer?.ok !== true) {
    log(
      `No local stack answers on http://127.0.0.1:${target.port}: start one with \`npm start\` (or pass --port, or --stack for a deployed one).`,
    );
    return undefined;
  }
  const local = (await answer.json()) as { endpoint: string; stateMachineArns: string[] };
  const client = new SFNClient({
    endpoint: local.endpoint,
    region: LOCAL_ENVIRONMENT.region,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  return { client, stateMachineArns: local.stateMachineArns };
}

function stackOption() {
  return new Option(
    "--stack <name>",
    "a deployed stack's name (its state machines are <stack>-react, …), reached with your AWS credentials; without it, the local stack",
  );
}

/** `goal-loops versions [--prune]` and `goal-loops rollback [--to V]`. */
export function addVersionCommands(program: Command, io: VersionCommandsIo): void {
  const { write, log } = io;
  program
    .command("versions")
    .description(
      "List the deployed versions, newest first: each deploy's label, record schema, how many goals run on it, and which one new goals start on (live)",
    )
    .addOption(io.portOption())
    .addOption(stackOption())
    .addOption(profileOption())
    .addOption(regionOption())
    .option(
      "--prune",
      "delete the versions no goal runs on, keeping the live one and the newest --keep",
      false,
    )
    .option(
      "--keep <n>",
      "how many of the newest versions --prune keeps (default: versions.keep of --config)",
    )
    .option(
      "--config <file>",
      "the configuration whose versions.keep --prune uses (default goal-loops.config.json)",
    )
    .action(async (options: VersionTarget & { prune: boolean; keep?: string; config?: string }) => {
      const sfn = await stepFunctionsOf(options, log);
      if (sfn === undefined) {
        process.exitCode = 1;
        return;
      }
      const { formatPrune, formatVersions, listDeployedVersions, pruneVersions } = await import(
        "./deployed-versions"
      );
      const versions = await listDeployedVersions(sfn.client, sfn.stateMachineArns);
      for (const line of formatVersions(versions)) write(line);
      if (options.prune) {
        const keep = options.keep === undefined ? await configuredKeep(options.config) : Number(options.keep);
        const pruned = await pruneVersions(sfn.client, versions, keep, {
          stateMachineArns: sfn.stateMachineArns,
          ...(sfn.lambda === undefined || options.stack === undefined
            ? {}
            : { lambda: { client: sfn.lambda, stackName: options.stack } }),
        });
        for (const line of formatPrune(pruned, keep)) write(line);
      }
      process.exitCode = 0;
    });

  program
    .command("rollback")
    .description(
      "Point every pattern's live alias back: new goals start on the version before the live one (or --to); goals running on the newer one finish on it",
    )
    .option("--to <version>", "the deploy label or version number to point at (see goal-loops versions)")
    .addOption(io.portOption())
    .addOption(stackOption())
    .addOption(profileOption())
    .addOption(regionOption())
    .action(async (options: VersionTarget & { to?: string }) => {
      const sfn = await stepFunctionsOf(options, log);
      if (sfn === undefined) {
        process.exitCode = 1;
        return;
      }
      const { listDeployedVersions, rollBack, VersionCommandError } = await import("./deployed-versions");
      try {
        const versions = await listDeployedVersions(sfn.client, sfn.stateMachineArns);
        const target = await rollBack(sfn.client, versions, sfn.stateMachineArns, options.to);
        write(`New goals start on ${target.label} (record schema ${target.schema})`);
        process.exitCode = 0;
      } catch (error) {
        if (!(error instanceof VersionCommandError)) throw error;
        log(error.message);
        process.exitCode = 1;
      }
    });
}

/** `versions.keep` of the configuration the project deploys with. */
async function configuredKeep(configFile: string | undefined): Promise<number> {
  const { resolveConfig } = await import("../../config/load-config");
  return resolveConfig({ projectDir: process.cwd(), configPath: configFile }).config.versions.keep;
}
