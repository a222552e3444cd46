/**
 * shared/: what adapters of several services use: the goal store's named errors (store-errors.ts;
 * raised by the DynamoDB and S3 adapters and the Lambda invoker), the payload store's port and
 * settings (payload-store.ts, payload-settings.ts: DynamoDB offloads to it, S3 answers it), loading
 * a module once per container (load-once.ts), X-Ray subsegments, and the fault injection the crash
 * tests use.
 * Not here: anything that talks to one service. This folder imports no other adapter folder.
 *
 * Handlers and other files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./fault-injection";
export * from "./load-once";
export * from "./payload-settings";
export * from "./payload-store";
export * from "./store-errors";
export * from "./xray-subsegments";
