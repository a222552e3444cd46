/**
 * loop/revisions/: applying a human's queued revisions at a step boundary (DESIGN §5): the
 * `reconcile` call that decides what stays valid, and compensation: the last reversible call undone
 * for a corrective revision, or a saga (a range of steps undone newest first, each call by its tool's
 * compensator) for a corrective revision with a target and for an abandoned plan_execute goal.
 * Not here: queueing a revision (human/handle-revision.ts) or the revision types and their
 * validation (goal/revisions.ts).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./abandon";
export * from "./apply-revisions";
export * from "./compensate";
export * from "./compensators";
export * from "./reconcile-prompt";
export * from "./saga";
