/**
 * The pure goal domain: contract schemas, the status machine, evidence and progress, limits, cost,
 * revisions, the `/goal` directive, pattern selection and prompt rendering. No I/O, no clock, no
 * randomness: callers pass `now` and ids. Ports live in ./ports and are imported from there.
 */
export * from "./canonical-json";
export * from "./check-evidence";
export * from "./create-goal";
export * from "./cycle-observations";
export * from "./directive";
export * from "./errors";
export * from "./evidence";
export * from "./fingerprints";
export * from "./goal-block";
export * from "./goal-change";
export * from "./goal-event";
export * from "./goal-lifecycle";
export * from "./goal-record";
export * from "./goal-spec";
export * from "./goal-status";
export * from "./invariants";
export * from "./judge-checks";
export * from "./limits";
export * from "./model-prices";
export * from "./model-roles";
export * from "./pattern-selector";
export * from "./progress-notes";
export * from "./reattach-run";
export * from "./record-cycle";
export * from "./record-judgement";
export * from "./revisions";
export * from "./snapshot";
export * from "./validation";
