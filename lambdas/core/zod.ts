/**
 * The zod every Lambda module builds its schemas with (`import * as z from ".../core/zod"`):
 * zod/mini, the functional form of zod 4 over the same core as the classic `zod` that the CDK
 * library and the tests use. A classic schema carries every method on every instance, which puts
 * all of classic (its JSON Schema code included) into each bundle and builds dozens of closures per
 * schema at cold start; a mini schema carries none, so a bundle holds only the functions its
 * schemas call. Mini and classic schemas are the same core types: a classic `z.object` takes mini
 * fields, `z.toJSONSchema` reads both, `z.infer` types both, so each shape is still written once
 * (in mini, under lambdas/) and lib/ composes it as it is.
 *
 * Re-exported with `export *`, never as a namespace object: esbuild then keeps only the functions
 * a bundle calls (a namespace value would hold all of zod/mini, every locale included).
 */
import { en } from "zod/locales";
import { config } from "zod/mini";

// Classic installs English messages when it loads; mini does not, and a bundle without classic
// would answer bad input with "Invalid input" alone. The same messages either way. (Listed in
// lambdas/package.json's sideEffects, so that the bundler keeps this call.)
config(en());

export * from "zod/mini";
// Not zod's own: module-level schemas are built on first use (lazy-schema.ts says why).
export { lazySchema } from "./lazy-schema";
