/**
 * ports/: the interfaces through which the core reaches the world: the goal store, step log, the
 * goal's history (step states, what forks and replays read), workspace, outbox, model client, the
 * capacity store, tool runner, task callback, run control, the human-input publisher and the clock.
 * lambdas/adapters implements them for AWS (and, by endpoint overrides, the local stack); tests
 * implement them in memory.
 * Not here: any implementation or any behaviour beyond the shapes and the errors a port may throw.
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./capacity-store";
export * from "./clock";
export * from "./goal-event-waiter";
export * from "./goal-history";
export * from "./goal-store";
export * from "./human-input-publisher";
export * from "./model-client";
export * from "./outbox";
export * from "./run-control";
export * from "./run-history";
export * from "./step-log";
export * from "./task-callback";
export * from "./tenant-store";
export * from "./tool-runner";
export * from "./workspace";
