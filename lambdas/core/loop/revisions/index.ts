/**
 * loop/revisions/: applying a human's queued revisions at a step boundary (DESIGN §5): the
 * `reconcile` call that decides what stays valid, and compensating (undoing) reversible actions for a
 * corrective revision.
 * Not here: queueing a revision (human/handle-revision.ts) or the revision types and their
 * validation (goal/revisions.ts).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./apply-revisions";
export * from "./compensate";
export * from "./reconcile-prompt";
