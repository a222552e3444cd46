/**
 * goal/evidence/: what proves a success check and what counts as progress (DESIGN §3): evidence
 * and its strength, which evidence satisfies which check, judging a cycle's recorded observations
 * (files and tool results, never the model's words), the progress fingerprints, the no-progress
 * count and pause, model-judge verdicts and progress notes.
 * Not here: reading files or calling the judge model (loop/verify/ does that and hands the results
 * in).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./check-evidence";
export * from "./cycle-observations";
export * from "./evidence";
export * from "./fingerprints";
export * from "./judge-checks";
export * from "./progress-notes";
export * from "./record-cycle";
export * from "./record-judgement";
