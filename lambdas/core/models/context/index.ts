/**
 * models/context/: the context packer: what every model call's prompt is made of (stable cached
 * prefix, goal block, step history, state text) and how it stays flat as a goal runs long
 * (compaction through `summarize` calls, token counting, tool-result bounds; settings in
 * context-settings.json). `packGoalContext` is the one call a loop pattern needs; the parts are
 * exported for prompts that are not built over the step log.
 * Not here: a role's own instructions (beside its step), or deciding what to do with an answer.
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./compact-ranks";
export * from "./compaction";
export * from "./context-settings";
export * from "./goal-block";
export * from "./goal-prefix";
export * from "./pack";
export * from "./pack-goal";
export * from "./prefix";
export * from "./role-prompt";
export * from "./step-history";
export * from "./tokenizer";
