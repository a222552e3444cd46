/**
 * bedrock/: the local Bedrock Runtime endpoint (Converse, over HTTP/2). Where an answer comes from:
 * fixtures for `scripted:` models (model-fixtures.ts, fixture-converse.ts), an OpenAI-compatible
 * server for `openai:` models (openai-chat-client.ts, openai-chat-translation.ts), or real Bedrock
 * through the recorder (bedrock-upstream.ts, fixture-recorder.ts). The rules it enforces as Bedrock
 * would: the Claude 5.5 request rules and the thinking round trip (claude-request-rules.ts,
 * claude-thinking-rules.ts, open-model-thinking-rules.ts), with its own reasoning signatures
 * (reasoning-signatures.ts).
 * Not here: the deployed Bedrock client, which the functions use unchanged
 * (lambdas/adapters/bedrock).
 */
export * from "./bedrock-endpoint";
export * from "./bedrock-upstream";
export * from "./claude-request-rules";
export * from "./claude-thinking-rules";
export * from "./fixture-converse";
export * from "./fixture-recorder";
export * from "./model-fixtures";
export * from "./open-model-thinking-rules";
export * from "./openai-chat-client";
export * from "./openai-chat-translation";
export * from "./reasoning-signatures";
