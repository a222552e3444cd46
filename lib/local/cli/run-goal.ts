import { readFile } from "node:fs/promises";
import type { GoalSnapshot, GoalStatus } from "../../../lambdas/core/goal/goal-record";
import { formatApproval, formatEvent, formatProgress, formatSummary } from "./format-progress";
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
  /** What to do when the goal waits for an approval; without it the run exits 2 (not interactive). */
  readonly approvals?: ApprovalMode;
}

/**
 * How `run` answers approvals of its goal: `auto` approves each one (`--auto-approve`), `prompt`
 * asks (a TTY), `none` leaves them pending and exits 2 (CI).
 */
export type ApprovalMode =
  | { readonly kind: "none" }
  | { readonly kind: "auto" }
  | { readonly kind: "prompt"; readonly ask: (question: string) => Promise<string> };

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
  const mode = options.approvals ?? { kind: "none" };
  /** Approvals this run answered (or found answered): the goal wakes on its own from here. */
  const answered = new Set<string>();
  for (;;) {
    const page = await client.listEvents(accepted.goalId, after);
    for (const event of page.items) write(options.json ? JSON.stringify(event) : formatEvent(event));
    after = page.nextSeq;
    const snapshot = await client.getGoal(accepted.goalId);
    const progress = formatProgress(snapshot);
    if (!options.json && progress !== lastProgress) write(`  ${progress}`);
    lastProgress = progress;
    const waitingFor = snapshot.status === "waiting" ? snapshot.waitingFor : null;
    if (waitingFor?.kind === "subgoal") {
      // The goal waits on its sub-goals: follow them, answering their approvals as the goal's own.
      if ((await followSubgoals(client, snapshot, mode, answered, options)) === "stuck") {
        write(options.json ? JSON.stringify({ type: "summary", snapshot }) : formatSummary(snapshot));
        return EXIT_CODES.waitingOrPaused;
      }
      await delay(options.pollIntervalMs ?? 250);
      continue;
    }
    if (waitingFor && mode.kind !== "none" && after >= snapshot.lastEventId) {
      if (!answered.has(waitingFor.approvalId)) {
        const outcome = await answerApproval(client, snapshot, waitingFor.approvalId, mode, options);
        if (outcome === "skipped") {
          write(options.json ? JSON.stringify({ type: "summary", snapshot }) : formatSummary(snapshot));
          return EXIT_CODES.waitingOrPaused;
        }
        if (outcome === "answered") answered.add(waitingFor.approvalId);
      }
      await delay(options.pollIntervalMs ?? 250);
      continue;
    }
    const exitCode = STOPPING[snapshot.status];
    if (exitCode !== undefined && after >= snapshot.lastEventId) {
      write(options.json ? JSON.stringify({ type: "summary", snapshot }) : formatSummary(snapshot));
      return exitCode;
    }
    await delay(options.pollIntervalMs ?? 250);
  }
}

/**
 * A goal waiting on its sub-goals moves on by itself once they end: `following` while they run or
 * wait for an approval this run answers; `stuck` when one is paused (a human resumes it), or waits
 * for an approval and this run answers none (not interactive), or one was skipped.
 */
async function followSubgoals(
  client: GoalsClient,
  snapshot: GoalSnapshot,
  mode: ApprovalMode,
  answered: Set<string>,
  options: RunGoalOptions,
): Promise<"following" | "stuck"> {
  for (const child of snapshot.children ?? []) {
    if (child.status === "paused") return "stuck";
    const approvalId = child.status === "waiting" ? child.waitingFor?.approvalId : undefined;
    if (approvalId === undefined || child.waitingFor?.kind === "subgoal" || answered.has(approvalId))
      continue;
    if (mode.kind === "none") return "stuck";
    const outcome = await answerApproval(client, { goalId: child.goalId }, approvalId, mode, options);
    if (outcome === "skipped") return "stuck";
    if (outcome === "answered") answered.add(approvalId);
  }
  return "following";
}

/**
 * Answers the approval the goal waits for, found by its id among the pending approvals of this goal
 * (the id comes from the API, never a token). `pending` when it is not listed yet.
 */
async function answerApproval(
  client: GoalsClient,
  snapshot: Pick<GoalSnapshot, "goalId">,
  approvalId: string,
  mode: Exclude<ApprovalMode, { kind: "none" }>,
  options: RunGoalOptions,
): Promise<"answered" | "skipped" | "pending"> {
  const { write } = options;
  const pending = await client.listApprovals("pending");
  const approval = pending.find((item) => item.approvalId === approvalId && item.goalId === snapshot.goalId);
  if (!approval) return "pending";
  let decision: "approve" | "reject";
  if (mode.kind === "auto") {
    decision = "approve";
  } else {
    write(formatApproval(approval));
    const answer = await askDecision(mode.ask);
    if (answer === "skip") return "skipped";
    decision = answer;
  }
  try {
    const decided = await client.decideApproval(
      approvalId,
      decision,
      mode.kind === "auto" ? "approved by goal-loops run --auto-approve" : undefined,
    );
    write(
      options.json
        ? JSON.stringify({ type: "approval.answered", approvalId, decision, status: decided.status })
        : `Approval ${approvalId} ${decided.status} (${approval.action.summary})`,
    );
  } catch (error) {
    if (!(error instanceof GoalsApiError)) throw error;
    // Decided elsewhere first (409), expired (410) or gone (404): the goal moves on without us.
    write(
      options.json
        ? JSON.stringify({
            type: "approval.refused",
            approvalId,
            status: error.status,
            code: error.body.code,
          })
        : `Approval ${approvalId} refused: ${error.message}`,
    );
  }
  return "answered";
}

async function askDecision(
  ask: (question: string) => Promise<string>,
): Promise<"approve" | "reject" | "skip"> {
  for (;;) {
    const answer = (await ask("approve? [y/n/skip] ")).trim().toLowerCase();
    if (answer === "y" || answer === "yes") return "approve";
    if (answer === "n" || answer === "no") return "reject";
    if (answer === "s" || answer === "skip") return "skip";
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
