/**
 * storage/: where the local stack keeps its data. DynamoDB on dynalite (dynamo.ts), with the goal
 * table created from its key design (create-goal-table.ts, which the tests use too), S3 on s3rver
 * (s3-endpoint.ts), the runtime's own client of the goal table and payload bucket
 * (local-store-client.ts), the change feed a long poll or stream waits on (goal-change-feed.ts),
 * the outbox where Slack, e-mail and notify messages land (local-outbox.ts), and the secrets the
 * doors read when deployed (local-secrets.ts).
 * Not here: the goal store's own code, which is the deployed adapter (lambdas/adapters/dynamodb)
 * run unchanged.
 */
export * from "./create-goal-table";
export * from "./dynamo";
export * from "./goal-change-feed";
export * from "./local-outbox";
export * from "./local-secrets";
export * from "./local-store-client";
export * from "./s3-endpoint";
