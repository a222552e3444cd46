/**
 * goal/: the goal contract and the record that holds it (DESIGN §1, §3, §4). The GoalSpec and its
 * validation, the record (one DynamoDB item: including the plan and the lessons the patterns keep on
 * it, and the loop marker that says which phase of which iteration a run has reached), a run's
 * lineage (run-lineage.ts: whether a gate, a step or a checkpoint is the current run's, across any
 * chain of take-overs), the status machine and its invariants, lifecycle transitions, limits, revisions, the public
 * snapshot, a fork's origin and inherited usage (fork.ts, usage.ts), the record's own schema and its
 * migrations (record-schema.ts, record-migrations.ts), the version a goal runs on (runs-on.ts), the domain's errors, and the small helpers every layer uses (canonical JSON, clip).
 * Evidence and progress are in ./evidence.
 * Not here: anything that calls a model or reaches a port (loop/, models/, intake/), and any
 * pattern's behaviour (patterns/). This is the bottom layer: it imports nothing else of the core but
 * two vocabularies, the model roles (models/model-roles.ts) and the human-input event types a
 * waiting goal is woken by (human/human-input-events.ts).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./canonical-json";
export * from "./create-goal";
export * from "./errors";
export * from "./evidence";
export * from "./fork";
export * from "./goal-change";
export * from "./goal-event";
export * from "./goal-ids";
export * from "./goal-lifecycle";
export * from "./goal-record";
export * from "./goal-spec";
export * from "./goal-status";
export * from "./human-pause";
export * from "./invariants";
export * from "./json-bounds";
export * from "./lesson";
export * from "./limits";
export * from "./loop-marker";
export * from "./plan";
export * from "./reattach-run";
export * from "./record-migrations";
export * from "./record-schema";
export * from "./revisions";
export * from "./run-lineage";
export * from "./run-takeover";
export * from "./runs-on";
export * from "./snapshot";
export * from "./text";
export * from "./thinking-settings";
export * from "./validation";
