import { readFile } from "node:fs/promises";
import type { GoalSnapshot, GoalStatus } from "../../../lambdas/core/goal/goal-record";
import { GoalLoopsApiError, type GoalLoopsClient } from "../../client/index";
import { followGoal, type OutputMode, type Screen } from "./follow-goal";
import { formatApproval, formatSummary } from "./format-progress";

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
  readonly client: GoalLoopsClient;
  readonly goalFile: string;
  /** Overrides the goal's default model (`models.default`), e.g. `scripted:write-summary`. */
  readonly model?: string;
  /** `view` (the compact live view), `events` (raw event lines) or `json` (JSON lines). */
  readonly mode: OutputMode;
  readonly write: (line: string) => void;
  /** A terminal to redraw the live view on; without it the view prints what changed. */
  readonly tty?: Screen["tty"];
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

/**
 * Reads a goal file, submits it, follows it live over its event stream and returns the exit code
 * for its outcome: it stops at a final status, or (caught up with every event) at `failed`,
 * `paused`, or `waiting` with no way to answer.
 */
export async function runGoal(options: RunGoalOptions): Promise<number> {
  const { client, write } = options;
  const json = options.mode === "json";
  const spec = await readGoalFile(options.goalFile, options.model);
  let accepted: Awaited<ReturnType<GoalLoopsClient["submitGoal"]>>;
  try {
    accepted = await client.submitGoal(spec);
  } catch (error) {
    if (!(error instanceof GoalLoopsApiError)) throw error;
    write(`${options.goalFile} was refused: ${error.message}`);
    for (const issue of error.body.issues ?? []) write(`  ${issue.path || "(root)"}: ${issue.message}`);
    return EXIT_CODES.failed;
  }
  if (!json) write(`Goal ${accepted.goalId} accepted (${accepted.pattern}, run ${accepted.runId})`);

  const mode = options.approvals ?? { kind: "none" };
  /** Approvals this run answered (or found answered): the goal wakes on its own from here. */
  const answered = new Set<string>();
  let skipped = false;
  let stuck = false;
  const final = await followGoal({
    client,
    goalId: accepted.goalId,
    mode: options.mode,
    screen: { write, ...(options.tty ? { tty: options.tty } : {}) },
    onCaughtUp: async (snapshot) => {
      const waitingFor = snapshot.status === "waiting" ? snapshot.waitingFor : null;
      if (waitingFor?.kind === "subgoal") {
        // Its sub-goals' events are not on its stream: follow them until they end or one is stuck.
        if ((await followSubgoals(client, snapshot, mode, answered, options)) === "following")
          return "continue";
        stuck = true;
        return "stop";
      }
      if (waitingFor && mode.kind !== "none") {
        if (answered.has(waitingFor.approvalId)) return "continue";
        const outcome = await answerApproval(client, snapshot, waitingFor.approvalId, mode, options);
        if (outcome === "skipped") {
          skipped = true;
          return "stop";
        }
        if (outcome === "answered") answered.add(waitingFor.approvalId);
        return "continue";
      }
      return STOPPING[snapshot.status] === undefined ? "continue" : "stop";
    },
  });
  write(json ? JSON.stringify({ type: "summary", snapshot: final }) : formatSummary(final));
  if (skipped || stuck) return EXIT_CODES.waitingOrPaused;
  return STOPPING[final.status] ?? EXIT_CODES.waitingOrPaused;
}

/** How often `run` looks at a waiting goal's sub-goals: their events are on streams of their own. */
const SUBGOAL_POLL_MS = 500;

/**
 * A goal waiting on its sub-goals moves on by itself once they end. Until its wait is over
 * (`following`: its stream goes on), the sub-goals are looked at and the approvals they wait for
 * answered like the goal's own; `stuck` when one is paused (a human resumes it), or waits for an
 * approval this run answers none of (not interactive), or the human skipped one.
 */
async function followSubgoals(
  client: GoalLoopsClient,
  waiting: GoalSnapshot,
  mode: ApprovalMode,
  answered: Set<string>,
  options: RunGoalOptions,
): Promise<"following" | "stuck"> {
  let snapshot = waiting;
  while (snapshot.status === "waiting" && snapshot.waitingFor?.kind === "subgoal") {
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
    await new Promise((resolveDelay) => setTimeout(resolveDelay, SUBGOAL_POLL_MS));
    snapshot = await client.getGoal(waiting.goalId);
  }
  return "following";
}

/**
 * Answers the approval the goal waits for, found by its id among the pending approvals of this goal
 * (the id comes from the API, never a token). `pending` when it is not listed yet.
 */
async function answerApproval(
  client: GoalLoopsClient,
  snapshot: Pick<GoalSnapshot, "goalId">,
  approvalId: string,
  mode: Exclude<ApprovalMode, { kind: "none" }>,
  options: RunGoalOptions,
): Promise<"answered" | "skipped" | "pending"> {
  const { write } = options;
  const json = options.mode === "json";
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
      json
        ? JSON.stringify({ type: "approval.answered", approvalId, decision, status: decided.status })
        : `Approval ${approvalId} ${decided.status} (${approval.action.summary})`,
    );
  } catch (error) {
    if (!(error instanceof GoalLoopsApiError)) throw error;
    // Decided elsewhere first (409), expired (410) or gone (404): the goal moves on without us.
    write(
      json
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
