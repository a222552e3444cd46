// The `goal-loops` CLI. Compiled to dist/cli (bin/goal-loops.mjs runs it); every command loads its
// modules when it runs, so `goal-loops --help` loads commander and this table alone (the bench's
// "CLI" figure holds it to its budget). Only light, zod-free modules are imported statically.
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { Command, InvalidArgumentError, Option } from "commander";
import type { RevisionType } from "../lambdas/core/goal/goal-record";
import type { SuccessCheck } from "../lambdas/core/goal/goal-spec";
import { REVISION_TYPES } from "../lambdas/core/goal/revision-types";
import { CHECK_FORMS, DIRECTIVE_FORMS } from "../lambdas/core/human/directive-forms";
import { APPROVAL_STATUSES } from "../lambdas/core/ports/approval-statuses";
import type { ApprovalListStatus, GoalLoopsClient } from "../lib/client/index";
import {
  type ApiTarget,
  apiOption,
  profileOption,
  regionOption,
  tokenOption,
} from "../lib/local/cli/api-target";
import type { OutputMode } from "../lib/local/cli/follow-goal";
import { addForkCommands } from "../lib/local/cli/fork-commands";
import type { ToolListing } from "../lib/local/cli/list-tools";
import type { ApprovalMode } from "../lib/local/cli/run-goal";
import { addVersionCommands } from "../lib/local/cli/version-commands";
import { addPreflightCommand } from "../lib/preflight/preflight-command";
import type { StartFlags } from "./goal-loops-start";

/**
 * Exit code of a command whose reader went away (`goal-loops tools | head -3`): 128 + SIGPIPE, what
 * a shell reports for a Unix tool that stopped on the closed pipe. Node ignores SIGPIPE, so a write
 * to the closed pipe fails with EPIPE instead, an unhandled error with a stack trace.
 */
const CLOSED_PIPE_EXIT = 141;
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(CLOSED_PIPE_EXIT);
});

/** Ollama's OpenAI-compatible API, the default of `--openai-url` (lib/local/bedrock/openai-chat-client.ts). */
const DEFAULT_OPENAI_URL = "http://127.0.0.1:11434/v1";

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

/**
 * `--model-quota rpm=N[,tpm=M][,burst=S]`, its syntax only: `goal-loops start` checks the numbers
 * against models.quotas' schema (so this file loads no zod for `--help`).
 */
function parseModelQuota(value: string): { rpm: number; tpm?: number; burst?: number } {
  const fields: { rpm?: number; tpm?: number; burst?: number } = {};
  for (const part of value.split(",")) {
    const match = /^\s*(rpm|tpm|burst)\s*=\s*(\d+)\s*$/.exec(part);
    if (match === null) {
      throw new InvalidArgumentError(`'${part}' is not rpm=N, tpm=N or burst=S (e.g. rpm=120,tpm=200000)`);
    }
    fields[match[1] as "rpm" | "tpm" | "burst"] = Number(match[2]);
  }
  const { rpm } = fields;
  if (rpm === undefined) throw new InvalidArgumentError("needs rpm=N (requests per minute)");
  return { ...fields, rpm };
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

interface RunOptions {
  readonly model?: string;
  readonly json: boolean;
  readonly events: boolean;
  readonly port: number;
  readonly fixtures?: string;
  readonly verbose: boolean;
  readonly autoApprove: boolean;
}

const write = (line: string) => process.stdout.write(`${line}\n`);
const log = (line: string) => process.stderr.write(`${line}\n`);

/** `--json` JSON lines, `--events` raw lines, else the compact live view. */
function outputMode(options: { json: boolean; events: boolean }): OutputMode {
  return options.json ? "json" : options.events ? "events" : "view";
}

/** stdout when it is a terminal and the live view is shown: redrawn in place there. */
function liveTerminal(options: { json: boolean; events: boolean }) {
  if (!process.stdout.isTTY || outputMode(options) !== "view") return undefined;
  return { write: (text: string) => void process.stdout.write(text) };
}

const program = new Command("goal-loops")
  .description("Run goal-directed agent loops on the local stack (the same cdk.out that `cdk deploy` ships)")
  .showHelpAfterError();

program
  .command("run")
  .description(
    "Submit a goal file and follow it live; exit 0 completed, 1 failed/terminated/cancelled, 2 waiting/paused",
  )
  .argument("<goal.json>", "a GoalSpec file, e.g. examples/goals/write-release-summary.json")
  .option("--model <id>", "model for every role of this goal, e.g. scripted:write-release-summary")
  .option("--json", "print events as JSON lines", false)
  .option("--events", "print each event as a raw line instead of the live view", false)
  .option(
    "--port <port>",
    "where the local stack listens (started in process when nothing answers)",
    parsePort,
    8787,
  )
  .option(
    "--fixtures <dir>",
    "fixtures folder when the stack is started in process (default: examples/fixtures, else the package's)",
  )
  .option("--verbose", "with a stack started in process, show its runtime and function logs on stderr", false)
  .option("--auto-approve", "approve every approval of this goal without asking", false)
  .action(async (goalFile: string, options: RunOptions) => {
    const [{ GoalLoopsClient }, { GoalFileError, runGoal }] = await Promise.all([
      import("../lib/client/index"),
      import("../lib/local/cli/run-goal"),
    ]);
    let client = new GoalLoopsClient(`http://127.0.0.1:${options.port}`);
    let stop: (() => Promise<void>) | undefined;
    if (!(await client.isReachable())) {
      log(`No local stack on port ${options.port}: starting one in this process (in memory)...`);
      const { startLocalStack } = await import("../lib/local/local-stack");
      // The CDK app of the folder it runs in (its cdk.json), synthesized when stale, as `start` does.
      const stack = await startLocalStack({
        projectDir: process.cwd(),
        port: 0,
        ...(options.fixtures === undefined ? {} : { fixturesDir: resolve(options.fixtures) }),
        model: options.model,
        inMemory: true,
        // Progress goes to stdout; the stack's own chatter only when asked for, and never on stdout.
        log: options.verbose ? log : () => undefined,
        functionLog: options.verbose ? (name, line) => log(`[${name}] ${line}`) : () => undefined,
      });
      client = new GoalLoopsClient(stack.apiUrl);
      stop = () => stack.stop();
    }
    // Approvals: --auto-approve answers them; a terminal asks; without one (CI) the run exits 2.
    const approvals: ApprovalMode = options.autoApprove
      ? { kind: "auto" }
      : process.stdin.isTTY
        ? { kind: "prompt", ask: askInTerminal }
        : { kind: "none" };
    try {
      process.exitCode = await runGoal({
        client,
        goalFile,
        model: options.model,
        mode: outputMode(options),
        write,
        ...(liveTerminal(options) ? { tty: liveTerminal(options) } : {}),
        approvals,
      });
    } catch (error) {
      if (!(error instanceof GoalFileError)) throw error;
      log(error.message);
      process.exitCode = 1;
    } finally {
      await stop?.();
    }
  });

/**
 * One question on the terminal. The interface lives only while it asks, so Ctrl+C between prompts
 * stops the run as usual; during a prompt it stops it too (exit 130) instead of pausing stdin.
 */
async function askInTerminal(question: string): Promise<string> {
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  terminal.on("SIGINT", () => {
    terminal.close();
    process.exit(130);
  });
  try {
    return await terminal.question(question);
  } finally {
    terminal.close();
  }
}

/** Subcommands that talk to a running local stack (`npm start`); none is started for them. */
function portOption() {
  return new Option("--port <port>", "where the local stack listens").argParser(parsePort).default(8787);
}

/**
 * Runs one control command against the local stack on `port`, or the deployed API `--api` (signed
 * with SigV4): exit 1 with a clear message when nothing answers there, or when the API refuses
 * (its status, code and message, e.g. 409 already decided).
 */
async function control(target: ApiTarget, act: (client: GoalLoopsClient) => Promise<void>): Promise<void> {
  const [{ clientFor }, { GoalLoopsApiError }] = await Promise.all([
    import("../lib/local/cli/api-target"),
    import("../lib/client/index"),
  ]);
  const client = await clientFor(target);
  if (client === undefined) {
    process.exitCode = 1;
    return;
  }
  if (!(await client.isReachable())) {
    log(
      target.api === undefined
        ? `No local stack answers on http://127.0.0.1:${target.port}: start one with \`npm start\` (or pass --port).`
        : `No goals API answers at ${target.api} (check the URL, your credentials and --profile).`,
    );
    process.exitCode = 1;
    return;
  }
  try {
    await act(client);
    process.exitCode = 0;
  } catch (error) {
    if (!(error instanceof GoalLoopsApiError)) throw error;
    const hint = REFUSAL_HINTS[error.body.code];
    log(`Refused: ${error.message}${hint ? ` (${hint})` : ""}`);
    for (const issue of error.body.issues ?? []) log(`  ${issue.path || "(root)"}: ${issue.message}`);
    process.exitCode = 1;
  }
}

const REFUSAL_HINTS: Readonly<Record<string, string>> = {
  ApprovalAlreadyDecided: "already decided",
  ApprovalExpired: "expired",
  InvalidStatus: "not allowed in the goal's status",
};

program
  .command("status")
  .description(
    "Show a goal's snapshot: status, evidence, what it waits for, usage, its sub-goals as a tree, and its latest compensation",
  )
  .argument("<goalId>")
  .addOption(portOption())
  .option("--json", "print the snapshot as JSON", false)
  .addOption(apiOption())
  .addOption(profileOption())
  .addOption(regionOption())
  .addOption(tokenOption())
  .action(async (goalId: string, options: ApiTarget & { json: boolean }) => {
    const [{ formatApproval, formatSummary }, { formatCompensation, formatGoalTree }] = await Promise.all([
      import("../lib/local/cli/format-progress"),
      import("../lib/local/cli/format-tree"),
    ]);
    await control(options, async (client) => {
      const snapshot = await client.getGoal(goalId);
      if (options.json) {
        write(JSON.stringify(snapshot, null, 2));
        return;
      }
      write(formatSummary(snapshot));
      write(`  objective: ${snapshot.objective} (revision ${snapshot.revision})`);
      for (const line of formatCompensation(snapshot)) write(line);
      if (snapshot.parentGoalId) write(`  sub-goal of: ${snapshot.parentGoalId}`);
      if (snapshot.children) for (const line of await formatGoalTree(client, snapshot)) write(`  ${line}`);
      if (snapshot.status !== "waiting") return;
      const pending = (await client.listApprovals("pending")).filter((item) => item.goalId === goalId);
      for (const approval of pending) {
        write(formatApproval(approval));
        write(`  answer with: goal-loops approve ${approval.approvalId}  (or reject)`);
      }
    });
  });

program
  .command("watch")
  .description(
    "Follow a goal live (its event stream): checks filling with evidence, plan steps, activity, cost; exit 0 completed, 1 otherwise once final",
  )
  .argument("<goalId>")
  .addOption(portOption())
  .option("--events", "print each event as a raw line instead of the live view", false)
  .option("--json", "print events as JSON lines", false)
  .addOption(apiOption())
  .addOption(profileOption())
  .addOption(regionOption())
  .addOption(tokenOption())
  .action(async (goalId: string, options: ApiTarget & { events: boolean; json: boolean }) => {
    const [{ followGoal }, { formatSummary }] = await Promise.all([
      import("../lib/local/cli/follow-goal"),
      import("../lib/local/cli/format-progress"),
    ]);
    await control(options, async (client) => {
      const tty = liveTerminal(options);
      const final = await followGoal({
        client,
        goalId,
        mode: outputMode(options),
        screen: { write, ...(tty ? { tty } : {}) },
      });
      write(options.json ? JSON.stringify({ type: "summary", snapshot: final }) : formatSummary(final));
      process.exitCode = final.status === "completed" ? 0 : 1;
    });
  });

program
  .command("approvals")
  .description(
    "List approvals (pending by default): the exact action, the goal revision it binds to, the expiry",
  )
  .addOption(new Option("--status <status>", "which approvals").choices(APPROVAL_STATUSES).default("pending"))
  .option("--goal <goalId>", "only this goal's")
  .option("--json", "print them as JSON", false)
  .addOption(portOption())
  .addOption(apiOption())
  .addOption(profileOption())
  .addOption(regionOption())
  .addOption(tokenOption())
  .action(async (options: ApiTarget & { status: ApprovalListStatus; goal?: string; json: boolean }) => {
    const { formatApproval } = await import("../lib/local/cli/format-progress");
    await control(options, async (client) => {
      const approvals = (await client.listApprovals(options.status)).filter(
        (approval) => options.goal === undefined || approval.goalId === options.goal,
      );
      if (options.json) write(JSON.stringify(approvals, null, 2));
      else if (approvals.length === 0) write(`No ${options.status} approvals`);
      else for (const approval of approvals) write(formatApproval(approval));
    });
  });

program
  .command("console")
  .description(
    "Serve the web console on 127.0.0.1 against a goals API: the local stack, or a deployed one (--api), its calls signed with your AWS credentials",
  )
  .addOption(apiOption())
  .addOption(profileOption())
  .addOption(regionOption())
  .addOption(tokenOption())
  .addOption(portOption().default(8787).argParser(parsePort))
  .option("--listen <port>", "where the console listens on 127.0.0.1 (0 picks a free one)", parsePort, 8788)
  .option(
    "--issuer <url>",
    "the API's OIDC issuer (api.auth.jwt.issuer): the page offers a sign-in there, with --client-id",
    parseUrl,
  )
  .option(
    "--client-id <id>",
    "the console's public client id at --issuer (a Cognito app client without a secret)",
  )
  .action(
    async (options: ApiTarget & { listen: number; issuer?: string; clientId?: string }, command: Command) => {
      if ((options.issuer === undefined) !== (options.clientId === undefined)) {
        command.error(
          options.issuer === undefined
            ? "error: --client-id needs --issuer (the OIDC issuer the client id belongs to)"
            : "error: --issuer needs --client-id (the console's client id at that issuer)",
        );
      }
      const api = options.api ?? `http://127.0.0.1:${options.port}`;
      // Loaded here only: the other commands never bundle the console nor load the signer.
      const [
        { startConsoleServer },
        { IssuerDiscoveryError },
        { BadTokenError, bearerFetch, SigningSetupError, signedFetch },
      ] = await Promise.all([
        import("../lib/local/cli/console-server"),
        import("../lib/local/cli/console-sign-in"),
        import("../lib/client/index"),
      ]);
      try {
        const server = await startConsoleServer({
          apiUrl: api,
          // A bearer token, when given, goes with every proxied call instead of a signature.
          apiFetch:
            options.token === undefined
              ? signedFetch({
                  apiUrl: api,
                  ...(options.profile === undefined ? {} : { profile: options.profile }),
                  ...(options.region === undefined ? {} : { region: options.region }),
                })
              : bearerFetch(options.token),
          port: options.listen,
          ...(options.issuer === undefined || options.clientId === undefined
            ? {}
            : { issuer: { issuer: options.issuer, clientId: options.clientId } }),
        });
        write(
          `goal-loops console on ${server.url}/console (API ${api}${options.api ? ", signed with SigV4" : ""}${options.issuer ? `; sign-in through ${options.issuer}` : ""})`,
        );
        write("Ctrl+C stops it.");
        const stop = () => void server.close().then(() => process.exit(0));
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      } catch (error) {
        const expected =
          error instanceof SigningSetupError ||
          error instanceof BadTokenError ||
          error instanceof IssuerDiscoveryError ||
          Reflect.get(Object(error), "code") === "EADDRINUSE";
        if (!expected) throw error;
        log(error instanceof Error ? error.message : String(error));
        process.exitCode = 1;
      }
    },
  );

program
  .command("mcp")
  .description(
    "Goals as an MCP server on stdio (for hosts that launch servers as commands), against the local stack or a deployed one (--api, signed with your AWS credentials or --token)",
  )
  .addOption(apiOption())
  .addOption(profileOption())
  .addOption(regionOption())
  .addOption(tokenOption())
  .addOption(portOption().default(8787).argParser(parsePort))
  .option(
    "--listen <port>",
    "serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio",
    parsePort,
  )
  .action(async (options: ApiTarget & { listen?: number }) => {
    const api = options.api ?? `http://127.0.0.1:${options.port}`;
    const target = {
      api,
      ...(options.profile === undefined ? {} : { profile: options.profile }),
      ...(options.region === undefined ? {} : { region: options.region }),
      ...(options.token === undefined ? {} : { token: options.token }),
    };
    // Loaded here only: the SDK's server stays out of every other command.
    const [{ runMcpListen, runMcpStdio }, { BadTokenError, SigningSetupError }] = await Promise.all([
      import("../lib/mcp/mcp-command"),
      import("../lib/client/index"),
    ]);
    try {
      if (options.listen === undefined) return await runMcpStdio(target);
      const server = await runMcpListen({ ...target, port: options.listen });
      // stdout is free here (no stdio transport): say where it listens.
      write(`goal-loops MCP server on ${server.url} (API ${api})`);
      const stop = () => void server.close().then(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    } catch (error) {
      if (!(error instanceof SigningSetupError || error instanceof BadTokenError)) throw error;
      log(error.message);
      process.exitCode = 1;
    }
  });

for (const decision of ["approve", "reject"] as const) {
  program
    .command(decision)
    .description(
      `${decision === "approve" ? "Approve" : "Reject"} a pending approval (its id from \`status\`)`,
    )
    .argument("<approvalId>")
    .option("--comment <text>", "why, recorded with the decision")
    .addOption(portOption())
    .action(async (approvalId: string, options: { port: number; comment?: string }) => {
      await control(options, async (client) => {
        const approval = await client.decideApproval(approvalId, decision, options.comment);
        write(
          `Approval ${approval.approvalId} ${approval.status} (goal ${approval.goalId}: ${approval.action.summary})`,
        );
      });
    });
}

program
  .command("revise")
  .description(
    "Revise a goal; applied at its next step boundary (never wakes a goal waiting for an approval)",
  )
  .argument("<goalId>")
  .argument("<content...>", "the revision text, e.g. the new objective of a redirect")
  .addOption(new Option("--type <type>", "revision type").choices(REVISION_TYPES).makeOptionMandatory())
  .option("--reason <text>", "why")
  .option(
    "--check <clause>",
    `a success check of the new contract (redirect, pivot, modify_objective), repeatable: ${CHECK_FORMS.map((form) => form.replace("--check ", "")).join(" | ")}`,
    (clause: string, previous: string[]) => [...previous, clause],
    [],
  )
  .addOption(portOption())
  .action(
    async (
      goalId: string,
      content: string[],
      options: { port: number; type: RevisionType; reason?: string; check: string[] },
    ) => {
      const checks = await parseChecks(options.check);
      if (checks === undefined) return;
      await control(options, async (client) => {
        const { revisionId } = await client.revise(goalId, {
          type: options.type,
          content: content.join(" "),
          ...(options.reason === undefined ? {} : { reason: options.reason }),
          ...(checks.length === 0 ? {} : { successChecks: checks }),
        });
        write(`Revision ${revisionId} (${options.type}) queued for goal ${goalId}`);
      });
    },
  );

program
  .command("directive")
  .description(
    `The /goal directive, as in Slack: ${DIRECTIVE_FORMS.map((form) => form.replace("/goal ", "")).join(", ")}`,
  )
  .argument("<goalId>")
  .argument("<text...>", "e.g. redirect Tell support --check told: tool_result notify success")
  .addOption(portOption())
  // `--check …` belongs to the directive's text (as typed in Slack), not to the command.
  .allowUnknownOption()
  .action(async (goalId: string, text: string[], options: { port: number }) => {
    const { formatSummary } = await import("../lib/local/cli/format-progress");
    await control(options, async (client) => {
      const answer = await client.directive(goalId, text.join(" "));
      if ("revisionId" in answer) write(`Revision ${answer.revisionId} queued for goal ${goalId}`);
      else write(formatSummary(answer));
    });
  });

/**
 * Each repeatable --check clause parsed (the parser loads zod, so not while commander reads the
 * arguments); a bad one is refused naming it, exit 1, before anything is sent.
 */
async function parseChecks(clauses: readonly string[]): Promise<SuccessCheck[] | undefined> {
  const { parseCheckClause } = await import("../lambdas/core/human/directive-checks");
  try {
    return clauses.map(parseCheckClause);
  } catch (error) {
    log(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    return undefined;
  }
}

program
  .command("pause")
  .description(
    "Pause a running goal at its next step boundary (a waiting one once its wait is over); `resume` continues it where it stopped",
  )
  .argument("<goalId>")
  .option("--reason <text>", "why, recorded with the pause")
  .addOption(portOption())
  .addOption(apiOption())
  .addOption(profileOption())
  .addOption(regionOption())
  .addOption(tokenOption())
  .action(async (goalId: string, options: ApiTarget & { reason?: string }) => {
    await control(options, async (client) => {
      await client.pause(goalId, options.reason);
      write(`Pause of goal ${goalId} requested: it pauses at its next step boundary`);
    });
  });

program
  .command("resume")
  .description(
    "Resume a paused goal from its checkpoint (a new run), or withdraw a pause that has not taken effect yet",
  )
  .argument("<goalId>")
  .addOption(portOption())
  .action(async (goalId: string, options: { port: number }) => {
    await control(options, async (client) => {
      await client.resume(goalId);
      write(`Resume of goal ${goalId} requested`);
    });
  });

program
  .command("retry")
  .description("Run a failed goal again: a redrive of its failed run, or a new run from its checkpoint")
  .argument("<goalId>")
  .addOption(portOption())
  .action(async (goalId: string, options: { port: number }) => {
    await control(options, async (client) => {
      await client.retry(goalId);
      write(`Retry of goal ${goalId} requested`);
    });
  });

function parseAmount(value: string): number {
  const amount = Number(value);
  if (value.trim() === "" || !Number.isFinite(amount))
    throw new InvalidArgumentError(`'${value}' is not a number`);
  return amount;
}

interface LimitsOptions {
  readonly port: number;
  readonly maxCostUsd?: number;
  readonly maxSteps?: number;
  readonly deadline?: string;
  readonly maxReplans?: number;
  readonly maxAttempts?: number;
  readonly maxNoProgressCycles?: number;
}

program
  .command("limits")
  .description(
    "Change a goal's limits now (answers a limit decision it waits on); prints the limits it then has",
  )
  .argument("<goalId>")
  .option("--max-cost-usd <usd>", "the goal's budget in USD", parseAmount)
  .option("--max-steps <n>", "how many steps it may take", parseAmount)
  .option("--deadline <iso>", "when it must be done (ISO 8601 date-time)")
  .option("--max-replans <n>", "how many replans it may request (plan_execute)", parseAmount)
  .option("--max-attempts <n>", "how many attempts it may make (reflexion)", parseAmount)
  .option("--max-no-progress-cycles <n>", "cycles without progress before it pauses", parseAmount)
  .addOption(portOption())
  .action(async (goalId: string, options: LimitsOptions) => {
    const { port, ...given } = options;
    const patch = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
    if (Object.keys(patch).length === 0) {
      log(
        "Name at least one limit: --max-cost-usd, --max-steps, --deadline, --max-replans, --max-attempts or --max-no-progress-cycles",
      );
      process.exitCode = 1;
      return;
    }
    await control({ port }, async (client) => {
      const { limits } = await client.setLimits(goalId, patch);
      write(`Limits of goal ${goalId}: ${JSON.stringify(limits)}`);
    });
  });

program
  .command("cancel")
  .description("Cancel a goal that is not final and stop its execution")
  .argument("<goalId>")
  .option("--reason <text>", "why, recorded as the stop reason")
  .addOption(portOption())
  .action(async (goalId: string, options: { port: number; reason?: string }) => {
    await control(options, async (client) => {
      await client.cancel(goalId, options.reason);
      write(`Cancel of goal ${goalId} requested`);
    });
  });

program
  .command("tools")
  .description(
    "List every tool a configuration yields (built-ins, tools.lambda, and tools.mcp servers' tools listed now): name, risk, source, why and what undoes a call; --json adds input schemas. With --mcp URL, list one MCP server's tools and how they would be gated",
  )
  .option("--config <file>", "the configuration file", "goal-loops.config.json")
  .option(
    "--mcp <url>",
    "connect to this MCP server (Streamable HTTP) only and show how its tools would be gated",
  )
  .option("--name <server>", "the server's name for --mcp (its tools are named <server>__<tool>)", "mcp")
  .option("--json", "print the tools as JSON, with their input schemas", false)
  .action(async (options: { config: string; mcp?: string; name: string; json: boolean }) => {
    const [{ loadConfigFile }, { McpServerConfigSchema, mcpServerEntry }, { ConfigError, parseSettings }] =
      await Promise.all([
        import("../lib/config/load-config"),
        import("../lib/config/mcp-servers-config"),
        import("../lib/config/parse-settings"),
      ]);
    const { formatToolListing, listMcpTools, listTools } = await import("../lib/local/cli/list-tools");
    let listing: { tools: ToolListing[]; problems: string[] };
    try {
      listing =
        options.mcp === undefined
          ? await listTools(loadConfigFile(resolve(options.config)))
          : await listMcpTools([
              mcpServerEntry(
                parseSettings(McpServerConfigSchema, { name: options.name, url: options.mcp }, "--mcp"),
              ),
            ]);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      log(`${error.name}: ${error.message}`);
      process.exitCode = 1;
      return;
    }
    if (options.json) write(JSON.stringify(listing.tools, null, 2));
    else for (const line of formatToolListing(listing.tools)) write(line);
    for (const problem of listing.problems) log(problem);
    // A server that could not be listed is a configuration a goal could not use: say so by the exit code.
    if (listing.problems.some((problem) => !problem.includes(": left out,"))) process.exitCode = 1;
  });

addForkCommands(program, { write, control, portOption });
addPreflightCommand(program, { write, log });
addVersionCommands(program, { write, log, portOption });

/** A kept version's number (1, 2, …), as `goal-loops versions` lists them. */
function parseVersionNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new InvalidArgumentError(`'${value}' is not a version number (1, 2, …)`);
  }
  return number;
}

program
  .command("start")
  .description(
    "Run the local stack on a CDK app that composes GoalLoops (DynamoDB, the state machines and Lambda bundles of its cloud assembly, the API on 127.0.0.1); `npm start` in the goal-loops repository is this on its own app",
  )
  .option(
    "--app <cdk.out | command>",
    "a cloud assembly folder to run as it is, or the command that synthesizes the app (default: cdk.json's app in this folder, synthesized when its sources are newer)",
  )
  .option("--stack <name>", "the stack to run (default: the one holding the GoalLoops construct)")
  .addOption(new Option("--port <port>", "API port on 127.0.0.1").argParser(parsePort).default(8787))
  .option(
    "--fixtures <dir>",
    "folder of model fixtures, scripted:<name> reads <dir>/<name>.json (default: examples/fixtures, else the package's examples)",
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
  )
  .option(
    "--model-quota <quota>",
    "the account's Bedrock quota, enforced by the local endpoint for every model, e.g. rpm=120,tpm=200000[,burst=10]: past it, ThrottlingException as Bedrock answers; without it, the endpoint enforces the models.quotas the app was synthesized with",
    parseModelQuota,
  )
  .option("--state-dir <dir>", "where DynamoDB data is kept across restarts", ".goal-loops")
  .option("--in-memory", "keep nothing: DynamoDB in memory", false)
  .option(
    "--rollback",
    "point new goals back at the version before the one they start on now (versions are kept by cdk.out in the state dir); goals on a newer version finish on it",
    false,
  )
  .option(
    "--rollback-to <version>",
    "point new goals back at this kept version (see goal-loops versions)",
    parseVersionNumber,
  )
  .option("--retry-interval-ms <ms>", "what every state machine Retry waits locally", parseMilliseconds, 0)
  .option(
    "--config <file>",
    "the configuration file to synthesize with, as context config=<file> (models, approvals, http hosts …); default goal-loops.config.json",
  )
  .option(
    "--account <file>",
    "the AWS account `goal-loops preflight` finds at the account endpoint (bootstrap, models' lifecycle, SES, secrets); default: a fresh bootstrapped one",
  )
  .action(async (flags: StartFlags) => {
    const { start } = await import("./goal-loops-start");
    await start(flags);
  });

await program.parseAsync(process.argv);
