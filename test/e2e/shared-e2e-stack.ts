import { expect } from "vitest";
import { GoalLoopsClient } from "../../lib/client/index";
import type { ContractViolation } from "../../lib/local/api/openapi-response-check";
import { cancelUnsettledGoals } from "./cancel-unsettled-goals";
import { assertNoViolations } from "./contract-checking-fetch";
import {
  type E2eStack,
  type LaunchedE2eStack,
  launchE2eStack,
  writeFixtureFile,
} from "./local-stack-harness";

/**
 * One default local stack per test process (the project's cdk.out, dynalite in memory), which the
 * end-to-end files lease one after the other.
 *
 * Why: a stack of a file's own pays its Lambda cold starts again, about ten sandboxes at 0.15–0.3 s
 * of CPU each (a bundle's cold import), plus its start. The `stack` project's forks run file after
 * file on one module graph (`isolate: false`, vitest.config.mts), so this module's state, and the
 * stack with its warm sandboxes, carries over to the next file of the same fork. The stack is never
 * stopped: it ends with the fork (vitest sends the fork SIGTERM when it is done with it; its worker
 * threads and sockets go with the process, and its fixtures and S3 folders are in the run's
 * temporary folder, which the global setup removes at the end of the run).
 *
 * What a lease keeps the file's own: the log lines and the contract violations seen while it held
 * the stack (stop() fails on its violations only), and its client. At stop() every goal left not
 * final (running, waiting on a human, paused, failed) is cancelled and awaited, so the next file
 * finds no goal of this one burning CPU or pending in the approvals list.
 *
 * What it does not: the stack's goals, executions, task tokens, outbox, Bedrock call log and
 * event deliveries are the fork's earlier files' too, and the sandboxes are warm. So a file may
 * lease it only if none of its checks depends on being alone on the stack (an unfiltered goal
 * listing or outbox, a stack-wide counter, a cold start); such a file starts its own
 * (startE2eStack). The fixtures folder is shared too: a fixture name another file wrote with
 * different content is refused.
 */
export async function sharedE2eStack(): Promise<E2eStack> {
  shared ??= startShared().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return lease(await shared);
}

/** A lease asked for while another is held, or the shared stack asked to stop. */
export class SharedE2eStackError extends Error {
  override readonly name = "SharedE2eStackError";
}

interface Lease {
  /** The test file that holds it, for the error when another asks. */
  readonly holder: string;
  readonly logLines: string[];
  readonly violations: ContractViolation[];
}

interface SharedStack {
  readonly launched: LaunchedE2eStack;
  readonly client: GoalLoopsClient;
  /** Each fixture name written through a lease, with its content and the file that wrote it. */
  readonly fixtures: Map<string, { readonly content: string; readonly holder: string }>;
  current: Lease | undefined;
  /** Contract violations seen while no file held the stack: the next lease owns them. */
  readonly unclaimed: ContractViolation[];
}

let shared: Promise<SharedStack> | undefined;

async function startShared(): Promise<SharedStack> {
  const unclaimed: ContractViolation[] = [];
  let state: SharedStack | undefined;
  const launched = await launchE2eStack(
    {},
    {
      // A line logged between two leases is no file's: no goal of the file before is left running.
      log: (line) => state?.current?.logLines.push(line),
      violation: (violation) => (state?.current?.violations ?? unclaimed).push(violation),
    },
  );
  state = {
    launched,
    client: new GoalLoopsClient(launched.stack.apiUrl),
    fixtures: new Map(),
    current: undefined,
    unclaimed,
  };
  return state;
}

function lease(state: SharedStack): E2eStack {
  const holder = expect.getState().testPath ?? "a test file";
  if (state.current !== undefined) {
    throw new SharedE2eStackError(
      `the shared end-to-end stack is leased by ${state.current.holder}; ${holder} asked for it before that lease's stop()`,
    );
  }
  const own: Lease = { holder, logLines: [], violations: state.unclaimed.splice(0) };
  state.current = own;
  const { stack, fixturesDir } = state.launched;
  let released: Promise<void> | undefined;
  return {
    stack: {
      ...stack,
      stop: () =>
        Promise.reject(
          new SharedE2eStackError(
            "the shared end-to-end stack stops with its process; end the lease with stop()",
          ),
        ),
    },
    client: new GoalLoopsClient(stack.apiUrl),
    fixturesDir,
    logLines: own.logLines,
    contractViolations: own.violations,
    writeFixture: (name, fixture) => {
      const content = JSON.stringify(fixture);
      const written = state.fixtures.get(name);
      if (written !== undefined && written.holder !== holder && written.content !== content) {
        throw new SharedE2eStackError(
          `fixture '${name}' was written by ${written.holder} with other content; name ${holder}'s otherwise`,
        );
      }
      state.fixtures.set(name, { content, holder });
      writeFixtureFile(fixturesDir, name, fixture);
    },
    stop: () => {
      released ??= release(state, own);
      return released;
    },
  };
}

async function release(state: SharedStack, own: Lease): Promise<void> {
  try {
    await cancelUnsettledGoals(state.client, state.launched.stack);
  } finally {
    state.current = undefined;
  }
  assertNoViolations(own.violations);
}
