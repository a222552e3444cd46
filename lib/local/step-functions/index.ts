/**
 * step-functions/: the local Step Functions service. The runner that executes the synthesized
 * definitions on aws-local-stepfunctions (state-machine-runner.ts, with the definition prepared for
 * it in prepare-definition.ts and the Promise.withResolvers polyfill it needs on Node 20),
 * executions and their history, Task overrides and the task-token registry that supply
 * `.waitForTaskToken` (task-handlers.ts, task-tokens.ts), the SFN JSON API the deployed code calls
 * (sfn-endpoint.ts), and re-attaching the goals a restart found running (reattach-goals.ts).
 * Not here: the Lambda functions a task invokes (lambda/), or the Scheduler (scheduler/).
 */
export * from "./execution";
export * from "./execution-history";
export * from "./polyfill";
export * from "./prepare-definition";
export * from "./reattach-goals";
export * from "./sfn-endpoint";
export * from "./state-machine-runner";
export * from "./task-handlers";
export * from "./task-tokens";
