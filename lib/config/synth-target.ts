/**
 * The context key that marks a synth for the local runtime (`npm start`, the tests' local stacks):
 * `cdk synth -c goal-loops:local=true`. Only such a synth accepts what only works on this machine
 * (an MCP server or webhook on 127.0.0.1), and its stack stays environment-agnostic whatever
 * credentials the shell has. Every other synth is one `cdk deploy` could ship.
 */
export const LOCAL_SYNTH_CONTEXT = "goal-loops:local";

/** Whether a context value (a boolean in code, the string `true` from `-c`) asks for a local synth. */
export function isLocalSynth(value: unknown): boolean {
  return value === true || value === "true";
}

/**
 * The construct metadata entry every `GoalLoops` carries (`node.addMetadata`), with the package
 * version that built it. The local runtime finds the GoalLoops constructs of any app's cloud
 * assembly by it, whatever the stack or construct is called (`goal-loops start --app`).
 */
export const GOAL_LOOPS_METADATA_TYPE = "goal-loops:construct";

/** The data of a GOAL_LOOPS_METADATA_TYPE entry. */
export interface GoalLoopsMetadata {
  /** The goal-loops package version whose construct (and pre-built bundles) the app used. */
  readonly version: string;
}

/**
 * The CloudFormation `Metadata` key of a REST API whose routes repeat another's of the same stack
 * (the bearer-token API of `api.auth.mode: "iam+jwt"`). The local runtime serves signed, bearer and
 * unsigned callers on one set of routes, so it skips the methods of an API marked with it; its
 * value says which API's routes it repeats.
 */
export const DUPLICATE_ROUTES_METADATA = "goal-loops:duplicate-routes-of";
