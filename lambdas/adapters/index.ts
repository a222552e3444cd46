/**
 * adapters/: the core's ports answered by AWS (DESIGN §8), one folder per AWS service: dynamodb/,
 * s3/, bedrock/, step-functions/, eventbridge/, scheduler/, slack/, ses/, secrets/, lambda/, mcp/,
 * metrics/ (Powertools and CloudWatch EMF), notify/ (the notify tool's senders) and event-waiters/
 * (the long poll's waits). A service's folder imports core, the tools' contracts, shared/ and
 * secrets/, never another service's folder (test/architecture checks it). goal-store-adapters.ts is
 * the one place that composes several services: the goal store a step gets, from DynamoDB, S3,
 * metrics, the Goal Ended signal, X-Ray and fault injection.
 * Not here: loop logic (lambdas/core) and the handlers that wire adapters to it (lambdas/handlers).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./goal-store-adapters";
