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
