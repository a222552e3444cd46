/**
 * step-functions/: the Step Functions API behind the core's run-control, run-history and
 * task-callback ports: starting a run (idempotent by name), stopping, redriving, reading a run's
 * status and history, SendTaskSuccess/Failure, and the deployed versions a goal runs on (the `live`
 * alias, a version's description).
 * Not here: the state machines' definitions (lib/constructs).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./execution-start-error";
export * from "./sfn-run-history";
export * from "./sfn-run-redrive";
export * from "./sfn-run-starter";
export * from "./sfn-run-status";
export * from "./sfn-run-stopper";
export * from "./sfn-task-callback";
export * from "./sfn-version-directory";
