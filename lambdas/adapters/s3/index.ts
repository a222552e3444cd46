/**
 * s3/: the payload bucket, which answers the payload store's port (shared/payload-store.ts) for
 * fields too large for a DynamoDB item.
 * Not here: deciding what is offloaded (dynamodb/encoding/large-item-offload.ts).
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./s3-payload-store";
