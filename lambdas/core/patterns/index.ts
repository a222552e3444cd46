/**
 * patterns/: only what one loop pattern does, one folder each: react/, plan-execute/,
 * reflexion/. A pattern folder never imports another pattern's folder, and nothing outside patterns/
 * imports one (test/architecture checks both): what two patterns need is the skeleton (loop/).
Not here: the skeleton (loop/), or choosing a goal's pattern (intake/).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * as planExecute from "./plan-execute";
export * as react from "./react";
export * as reflexion from "./reflexion";
