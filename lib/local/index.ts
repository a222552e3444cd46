/**
 * lib/local: the local runtime (DESIGN §7). It runs what `cdk synth` wrote to cdk.out on a laptop
 * with no AWS account: every AWS service the deployed stack uses is emulated by one folder here,
 * and local-stack.ts composes them into `npm start`. The folders are layered, each importing only
 * the ones below it (test/architecture checks it): shared/ at the bottom; cdk-out/, storage/,
 * lambda/, eventbridge/, bedrock/, api/ and account/ above it; step-functions/ (which reads state
 * machines through cdk-out/) and cli/ (whose console server serves api/'s console) above those;
 * scheduler/ (which clamps timers as step-functions/ does) above that; local-stack.ts on top.
 * Not here: anything `npm install goal-loops` ships as the construct library (lib/goal-loops.ts,
 * lib/constructs, lib/config, lib/preflight, lambdas/): that never imports the local runtime.
 */
export * from "./local-stack";
