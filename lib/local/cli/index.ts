/**
 * cli/: the `goal-loops` commands' own code: which API a command talks to (api-target.ts; the
 * client itself is the package's GoalLoopsClient, lib/client), following a goal live
 * and formatting its progress (follow-goal.ts, live-view.ts, format-progress.ts, format-tree.ts),
 * running one goal in the terminal (run-goal.ts), listing tools (list-tools.ts), a goal's steps,
 * forks and replays (fork-commands.ts), the deployed versions and rollback through the Step
 * Functions API (version-commands.ts, deployed-versions.ts), and the console proxy (console-server.ts). bin/goal-loops.ts wires them into commander.
 * Not here: the stack the commands start when none is running (local-stack.ts).
 */
export * from "./api-target";
export * from "./console-server";
export * from "./deployed-versions";
export * from "./follow-goal";
export * from "./fork-commands";
export * from "./format-progress";
export * from "./format-tree";
export * from "./list-tools";
export * from "./live-view";
export * from "./run-goal";
export * from "./version-commands";
