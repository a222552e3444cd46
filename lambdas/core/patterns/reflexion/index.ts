/**
 * patterns/reflexion/: Reflexion's own steps: Attempt, Evaluate (the verify step, deciding whether to
 * reflect) and Reflect (a short lesson kept on the goal), with their prompts.
 * Not here: the lesson's shape on the record (goal/lesson.ts), or the shared steps (loop/).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */

export * from "./attempt";
export * from "./attempt-prompt";
export * from "./evaluate";
export * from "./record-lesson";
export * from "./reflect";
export * from "./reflect-prompt";
export * from "./reflexion-deps";
