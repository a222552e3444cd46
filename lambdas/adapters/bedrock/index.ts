/**
 * bedrock/: Bedrock Runtime's Converse API behind the core's ModelClient port: the client for a
 * handler's module scope (its request timeout), the request and answer mapping, and which errors
 * are retryable and which are fatal.
 * Not here: prompts, roles and checkpoints (lambdas/core/models).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./bedrock-errors";
export * from "./bedrock-model-client";
export * from "./bedrock-runtime-client";
