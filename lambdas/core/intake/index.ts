/**
 * intake/: a submitted GoalSpec becoming a running goal (`POST /goals`): validation with field
 * paths, the model allow-list, the pattern chosen by the selector's rules (DESIGN §2) or, when no
 * rule applies, by the `select` model call, and the goal's first record and event.
 * It sits above goal/, models/ and patterns/ because choosing a pattern may need a model call; the
 * goal contract itself (goal/) stays free of models.
 * Not here: starting the execution or answering HTTP (lambdas/handlers/api).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./goal-intake";
export * from "./pattern-selector";
export * from "./select-call";
