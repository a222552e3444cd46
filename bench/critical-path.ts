import type { Execution } from "../lib/local/step-functions/execution";
import type { StoreRequest } from "./dynamo-proxy";

/** A Task state's span in an execution's history (ms; the history's timestamps are whole ms). */
interface TaskSpan {
  readonly state: string;
  readonly entered: number;
  readonly exited: number;
}

export interface CriticalPathCount {
  /** Sequential DynamoDB round trips each iteration waited on, iteration by iteration. */
  readonly rounds: readonly number[];
  /** Every DynamoDB request made in each iteration's window, whoever made it and whether it waited. */
  readonly requests: readonly number[];
  /** Each iteration's rounds, each the requests sent together (`GetItem GOAL`, `Query STEP` …), per Task state. */
  readonly paths: readonly string[];
}

const nameOf = (event: ReturnType<Execution["history"]>[number]) => {
  const name = event.details?.value.name;
  return typeof name === "string" ? name : "";
};

/** The Task states' spans of every run, in time order (a run's Task states follow one another). */
function taskSpans(runs: readonly Execution[]): TaskSpan[] {
  const spans: TaskSpan[] = [];
  for (const run of runs) {
    let open: { state: string; entered: number } | undefined;
    for (const event of run.history()) {
      if (event.type === "TaskStateEntered") open = { state: nameOf(event), entered: +event.timestamp };
      if (event.type === "TaskStateExited" && open !== undefined) {
        spans.push({ ...open, exited: +event.timestamp });
        open = undefined;
      }
    }
  }
  return spans.sort((a, b) => a.entered - b.entered);
}

/**
 * Round trips in `requests` one after the other: requests whose spans overlap (sent together,
 * `Promise.all`) are one round; a request sent after the round's last answer starts the next.
 */
export function sequentialRounds<R extends { startedAt: number; endedAt: number }>(
  requests: readonly R[],
): R[][] {
  const rounds: R[][] = [];
  let roundEnd = Number.NEGATIVE_INFINITY;
  for (const request of [...requests].sort((a, b) => a.startedAt - b.startedAt)) {
    if (request.startedAt >= roundEnd) {
      rounds.push([request]);
      roundEnd = request.endedAt;
    } else {
      rounds.at(-1)?.push(request);
      roundEnd = Math.max(roundEnd, request.endedAt);
    }
  }
  return rounds;
}

/**
 * The DynamoDB round trips on the critical path of each iteration of a goal: from one `stepState`
 * (VerifyAndReason) starting to the next starting, the requests a Task state sent and had its
 * answer to before the state ended (Step Functions waited on them), counted as sequential rounds.
 * Requests still open when their Task ended (not awaited), or made outside a Task (the API, the
 * change feed), are off the path. The last iteration (the goal ending) is left out.
 */
export function criticalPathCount(
  runs: readonly Execution[],
  requests: readonly StoreRequest[],
  stepState: string,
): CriticalPathCount {
  const spans = taskSpans(runs);
  const starts = spans.filter((span) => span.state === stepState).map((span) => span.entered);
  const answered = requests.flatMap((request) =>
    request.endedAt === undefined
      ? []
      : [
          {
            startedAt: request.startedAt,
            endedAt: request.endedAt,
            // A goal's items by their kind (`GOAL`, `STEP` …), another partition's by its name (`TENANT`).
            what: `${request.operation} ${request.partition === undefined || request.partition === "GOAL" ? request.itemKind : request.partition}`,
          },
        ],
  );
  const rounds: number[] = [];
  const all: number[] = [];
  const paths: string[] = [];
  for (let index = 0; index + 1 < starts.length; index += 1) {
    const from = starts[index] ?? 0;
    const to = starts[index + 1] ?? 0;
    // The history's timestamps are whole ms: a span ends before the next ms begins.
    const inWindow = spans.filter((span) => span.entered >= from && span.entered < to);
    const waitedIn = (span: TaskSpan) =>
      answered.filter((request) => request.startedAt >= span.entered && request.endedAt < span.exited + 1);
    rounds.push(sequentialRounds(inWindow.flatMap(waitedIn)).length);
    paths.push(
      inWindow
        .map(
          (span) =>
            `${span.state}: ${sequentialRounds(waitedIn(span))
              .map((round) => round.map((request) => request.what).join(" | "))
              .join(", ")}`,
        )
        .join("; "),
    );
    all.push(answered.filter((request) => request.startedAt >= from && request.startedAt < to).length);
  }
  return { rounds, requests: all, paths };
}
