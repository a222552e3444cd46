import type { GoalEvent } from "../../../lambdas/core/goal/goal-event";
import type { GoalSnapshot } from "../../../lambdas/core/goal/goal-record";
import type { GoalDetails, GoalLoopsClient } from "../../client/index";
import { formatEvent } from "./format-progress";
import { type LiveState, renderLiveView } from "./live-view";

/** Event types after which a goal's details (evidence, plan, lessons, contract) may differ. */
const DETAIL_EVENTS = /^((evidence|judgement|plan|replan|lesson|attempt|revision|contract|goal)\.|progress$)/;

/** `view`: the compact live view (default); `events`: one raw line per event; `json`: JSON lines. */
export type OutputMode = "view" | "events" | "json";

export interface Screen {
  readonly write: (line: string) => void;
  /** A terminal: the view is redrawn in place with a spinner; else it prints what changed. */
  readonly tty?: { readonly write: (text: string) => void };
}

/** After each event, once the follower caught up with the goal: go on, or stop following. */
export type OnCaughtUp = (snapshot: GoalSnapshot) => Promise<"continue" | "stop"> | "continue" | "stop";

export interface FollowOptions {
  readonly client: GoalLoopsClient;
  readonly goalId: string;
  readonly mode: OutputMode;
  readonly screen: Screen;
  /** Called whenever the follower has every event of the goal (a waiting goal, a paused one …). */
  readonly onCaughtUp?: OnCaughtUp;
}

/**
 * Follows a goal over its event stream (SSE, or the long poll where the stream is missing) and
 * shows it in `mode` until the stream ends (the goal is final) or `onCaughtUp` says stop. No
 * polling: the view changes when an event arrives. Returns the goal's snapshot at the end.
 */
export async function followGoal(options: FollowOptions): Promise<GoalSnapshot> {
  const { client, goalId, mode, screen } = options;
  const view = mode === "view" ? new LiveViewPrinter(screen) : undefined;
  const stop = new AbortController();
  let state: LiveState = { snapshot: await client.getGoal(goalId) };
  const refresh = async (lastEvent?: GoalEvent) => {
    // The details (checks' evidence, plan, lessons) change only with some events: read them then.
    const detailsChanged = lastEvent === undefined || DETAIL_EVENTS.test(lastEvent.type);
    const [snapshot, details] = await Promise.all([
      client.getGoal(goalId),
      view && detailsChanged
        ? client.getDetails(goalId).catch((): GoalDetails | undefined => undefined)
        : state.details,
    ]);
    state = { snapshot, ...(details ? { details } : {}), ...(lastEvent ? { lastEvent } : {}) };
    view?.render(state);
  };
  if (view) await refresh();
  try {
    if (state.snapshot.lastEventId === 0 || !(await caughtUp(options, state.snapshot))) {
      for await (const event of client.watch(goalId, { signal: stop.signal })) {
        if (mode === "events") screen.write(formatEvent(event));
        if (mode === "json") screen.write(JSON.stringify(event));
        await refresh(event);
        if (event.seq >= state.snapshot.lastEventId && (await caughtUp(options, state.snapshot))) break;
      }
    }
  } finally {
    stop.abort();
    view?.close();
  }
  return client.getGoal(goalId);
}

async function caughtUp(options: FollowOptions, snapshot: GoalSnapshot): Promise<boolean> {
  return (await options.onCaughtUp?.(snapshot)) === "stop";
}

/** Prints the live view: redrawn in place with a spinner on a terminal, else the lines that changed. */
class LiveViewPrinter {
  private shown = 0;
  private frame = 0;
  private state: LiveState | undefined;
  private readonly printed = new Set<string>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(private readonly screen: Screen) {
    if (screen.tty) {
      this.timer = setInterval(() => {
        this.frame += 1;
        if (this.state?.snapshot.status === "running") this.draw();
      }, 120);
      this.timer.unref();
    }
  }

  render(state: LiveState): void {
    this.state = state;
    this.draw();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.screen.tty && this.state) {
      this.frame = -1;
      this.draw();
    }
  }

  private draw(): void {
    const state = this.state;
    if (!state) return;
    const { tty } = this.screen;
    if (tty) {
      const lines = renderLiveView(state, this.frame < 0 ? undefined : this.frame);
      // Back to the first line of the last drawing, clear below, draw again.
      tty.write(`${this.shown > 0 ? `\x1b[${this.shown}F\x1b[J` : ""}${lines.join("\n")}\n`);
      this.shown = lines.length;
      return;
    }
    // A pipe or a log: the header once, then each line the first time it reads so (a check met, a
    // plan step done, a new activity), never the changing cost line again.
    const [header, ...rest] = renderLiveView(state);
    const lines = this.printed.size === 0 ? [header ?? "", ...rest] : rest;
    for (const line of lines) {
      if (this.printed.has(line)) continue;
      this.printed.add(line);
      this.screen.write(line);
    }
  }
}
