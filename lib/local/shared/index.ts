/**
 * shared/: the vocabulary every local service speaks: the model of a synthesized cloud assembly as
 * the runtime reads it (cloud-assembly-model.ts: functions, state machines, tables, rules, every
 * token resolved), the runtime's named errors, JSON helpers, listening on loopback, and the AWS
 * JSON 1.0/1.1 protocol server the Step Functions and EventBridge endpoints share.
 * Not here: anything one service alone uses. This is the bottom layer: it imports no other folder
 * of lib/local.
 */
export * from "./aws-json-server";
export * from "./cloud-assembly-model";
export * from "./errors";
export * from "./json";
export * from "./listen";
