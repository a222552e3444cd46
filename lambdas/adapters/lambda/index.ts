/**
 * lambda/: invoking a user's Lambda tool (and its compensator) with the Lambda SDK, loaded only
 * when a goal calls one.
 * Not here: the tool's contract and risk (lambdas/tools/lambda-tool.ts).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./lambda-tool-invoker";
export * from "./lazy-lambda-invoker";
