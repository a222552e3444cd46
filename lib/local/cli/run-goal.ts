import { readFile } from "node:fs/promises";
import type { GoalStatus } from "../../../lambdas/core/goal-record";
import { formatEvent, formatProgress, formatSummary } from "./format-progress";
import { GoalsApiError, type GoalsClient } from "./goals-client";

/** Exit codes of `goal-loops run` (DESIGN §6). */
export const EXIT_CODES = { completed: 0, failed: 1, waitingOrPaused: 2 } as const;

const STOPPING: Readonly<Record<GoalStatus, number | undefined>> = {
  completed: EXIT_CODES.completed,
  failed: EXIT_CODES.failed,
  terminated: EXIT_CODES.failed,
  cancelled: EXIT_CODES.failed,
  paused: EXIT_CODES.waitingOrPaused,
  waiting: EXIT_CODES.waitingOrPaused,
  running: undefined,
};

export interface RunGoalOptions {
  readonly client: GoalsClient;
  readonly goalFile: string;
  /** Overrides the goal's default model (`models.default`), e.g. `scripted:write-summary`. */
  readonly model?: string;
  /** Print events as JSON lines instead of text. */
  readonly json: boolean;
  readonly write: (line: string) => void;
  readonly pollIntervalMs?: number;
}

/** Reads a goal file, submits it, follows its events and returns the exit code for its outcome. */
export async function runGoal(options: RunGoalOptions): Promise<number> {
  const { client, write } = options;
  const spec = await readGoalFile(options.goalFile, options.model);
  let accepted: Awaited<ReturnType<GoalsClient["submitGoal"]>>;
  try {
    accepted = await client.submitGoal(spec);
  } catch (error) {
    if (!(error instanceof GoalsApiError)) throw error;
    write(`${options.goalFile} was refused: ${error.message}`);
    for (const issue of error.body.issues ?? []) write(`  ${issue.path || "(root)"}: ${issue.message}`);
    return EXIT_CODES.failed;
  }
  if (!options.json) write(`Goal ${accepted.goalId} accepted (${accepted.pattern}, run ${accepted.runId})`);

  let after = 0;
  let lastProgress = "";
  for (;;) {
    const page = await client.listEvents(accepted.goalId, after);
    for (const event of page.items) write(options.json ? JSON.stringify(event) : formatEvent(event));
    after = page.nextSeq;
    const snapshot = await client.getGoal(accepted.goalId);
    const progress = formatProgress(snapshot);
    if (!options.json && progress !== lastProgress) write(`  ${progress}`);
    lastProgress = progress;
    const exitCode = STOPPING[snapshot.status];
    if (exitCode !== undefined && after >= snapshot.lastEventId) {
      write(options.json ? JSON.stringify({ type: "summary", snapshot }) : formatSummary(snapshot));
      return exitCode;
    }
    await delay(options.pollIntervalMs ?? 250);
  }
}

async function readGoalFile(path: string, model: string | undefined): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new GoalFileError(
      `Cannot read goal file ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  let spec: unknown;
  try {
    spec = JSON.parse(text);
  } catch (error) {
    throw new GoalFileError(`Goal file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw new GoalFileError(`Goal file ${path} must hold a JSON object (a GoalSpec)`);
  }
  const goal = spec as Record<string, unknown>;
  if (model === undefined) return goal;
  const models = typeof goal.models === "object" && goal.models !== null ? goal.models : {};
  return { ...goal, models: { ...models, default: model } };
}

/** The goal file could not be read or is not a JSON object. */
export class GoalFileError extends Error {
  override readonly name = "GoalFileError";
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
