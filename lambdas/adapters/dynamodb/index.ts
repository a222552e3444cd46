/**
 * dynamodb/: the goal table. The key design (table-design.ts, goal-table-keys.ts), the goal store
 * with its event log, step log, outbox and workspace, the items' shapes and sizes,
 * first-writer-wins puts and the Slack door's replay guard; ./encoding turns a document into an item (compressed,
 * sized, its large values offloaded to the payload store); ./limits keeps the deployment's shared limits
 * in the same table.
 * Not here: the payload bucket (s3/), or composing the store with metrics and signals
 * (../goal-store-adapters.ts).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./dynamodb-event-log";
export * from "./dynamodb-get-item";
export * from "./dynamodb-goal-partition";
export * from "./dynamodb-goal-store";
export * from "./dynamodb-items";
export * from "./dynamodb-outbox";
export * from "./dynamodb-put-first";
export * from "./dynamodb-step-log";
export * from "./dynamodb-workspace";
export * from "./encoding";
export * from "./encoding/item-size";
export * from "./encoding/large-item-offload";
export * from "./goal-table-keys";
export * from "./slack-replay-guard";
export * from "./table-design";
