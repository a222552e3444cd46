/**
 * lib/build: the package's build, run in a clone only (esbuild and TypeScript are development
 * dependencies): the Lambda handler bundles (build-handlers.ts), the construct library and its
 * declarations and the API's OpenAPI document (build-library.ts, openapi-file.ts; `npm run openapi`
 * writes the docs' copy, write-openapi-docs.ts), the CLI and the console (build-cli.ts), each rebuilt when one of
 * its inputs is newer than its build record (build-record.ts). `npm run build` and `npm pack` run
 * all of it (bin/build.ts); `bin/app.ts` rebuilds the handler bundles before a synth, the tests'
 * setup everything, and bin/goal-loops.mjs the CLI.
 * Not here: what the built files are loaded by (lib/constructs/handler-bundles.ts points
 * `Code.fromAsset` at the bundles); nothing the published package runs imports this folder.
 */
export * from "./build-cli";
export * from "./build-handlers";
export * from "./build-library";
export * from "./build-package";
export * from "./build-record";
export * from "./openapi-file";
