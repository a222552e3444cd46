import { resolve } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { GoalsClient } from "../lib/local/cli/goals-client";
import { GoalFileError, runGoal } from "../lib/local/cli/run-goal";
import { startLocalStack } from "../lib/local/local-stack";

const projectDir = resolve(import.meta.dirname, "..");

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError(`'${value}' is not a port number (0-65535)`);
  }
  return port;
}

interface RunOptions {
  readonly model?: string;
  readonly json: boolean;
  readonly port: number;
  readonly fixtures: string;
  readonly verbose: boolean;
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
  .option(
    "--port <port>",
    "where the local stack listens (started in process when nothing answers)",
    parsePort,
    8787,
  )
  .option("--fixtures <dir>", "fixtures folder when the stack is started in process", "examples/fixtures")
  .option("--verbose", "with a stack started in process, show its runtime and function logs on stderr", false)
  .action(async (goalFile: string, options: RunOptions) => {
    const write = (line: string) => process.stdout.write(`${line}\n`);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    let client = new GoalsClient(`http://127.0.0.1:${options.port}`);
    let stop: (() => Promise<void>) | undefined;
    if (!(await client.isReachable())) {
      log(`No local stack on port ${options.port}: starting one in this process (in memory)...`);
      const stack = await startLocalStack({
        projectDir,
        port: 0,
        fixturesDir: resolve(options.fixtures),
        model: options.model,
        inMemory: true,
        // Progress goes to stdout; the stack's own chatter only when asked for, and never on stdout.
        log: options.verbose ? log : () => undefined,
        functionLog: options.verbose ? (name, line) => log(`[${name}] ${line}`) : () => undefined,
      });
      client = new GoalsClient(stack.apiUrl);
      stop = () => stack.stop();
    }
    try {
      process.exitCode = await runGoal({
        client,
        goalFile,
        model: options.model,
        json: options.json,
        write,
      });
    } catch (error) {
      if (!(error instanceof GoalFileError)) throw error;
      log(error.message);
      process.exitCode = 1;
    } finally {
      await stop?.();
    }
  });

await program.parseAsync(process.argv);
