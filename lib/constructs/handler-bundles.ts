import { existsSync } from "node:fs";
import path from "node:path";
import { Code } from "aws-cdk-lib/aws-lambda";
import { packageFile } from "../package-files";

/**
 * Every Lambda handler goal-loops deploys, by the name of its pre-built bundle, with its source
 * under `lambdas/handlers/`. The package's build (lib/build) bundles each one with esbuild into
 * `dist/lambdas/<name>/index.mjs`; a synth only points `Code.fromAsset` at that folder, so a CDK
 * app that composes `GoalLoops` needs neither esbuild nor the TypeScript sources.
 */
export const HANDLER_BUNDLES = {
  "load-goal": "loop/load-goal.ts",
  act: "loop/act.ts",
  "request-approval": "loop/request-approval.ts",
  "approval-expired": "loop/approval-expired.ts",
  "continue-as-new": "loop/continue-as-new.ts",
  "record-failure": "loop/record-failure.ts",
  "await-subgoals": "loop/await-subgoals.ts",
  "mcp-gateway": "loop/mcp-gateway.ts",
  "verify-and-reason": "patterns/react/verify-and-reason.ts",
  plan: "patterns/plan-execute/plan.ts",
  execute: "patterns/plan-execute/execute.ts",
  observe: "patterns/plan-execute/observe.ts",
  attempt: "patterns/reflexion/attempt.ts",
  evaluate: "patterns/reflexion/evaluate.ts",
  reflect: "patterns/reflexion/reflect.ts",
  "goals-api": "api/goals-api.ts",
  "goal-event-stream": "api/goal-event-stream.ts",
  "openapi-document": "api/openapi-json.ts",
  "jwt-authorizer": "api/jwt-authorizer.ts",
  "resume-handler": "human/resume-handler.ts",
  "email-door": "human/email/email-door.ts",
  "slack-door": "human/slack/slack-door.ts",
  "pending-approvals-probe": "human/pending-approvals-probe.ts",
  "secret-age-probe": "operations/secret-age-probe.ts",
} as const;

export type HandlerBundleName = keyof typeof HANDLER_BUNDLES;

/** The file name of every bundle, as the Lambda runtime loads it (`index.handler`). */
export const HANDLER_BUNDLE_FILE = "index.mjs";

/** Where a handler's pre-built bundle lives: its own folder, which becomes the function's asset. */
export function handlerBundleDir(name: HandlerBundleName): string {
  return packageFile("dist", "lambdas", name);
}

/** Thrown when a pre-built bundle is missing: a clone that was never built, or a broken package. */
export class MissingHandlerBundleError extends Error {
  override readonly name = "MissingHandlerBundleError";
}

/**
 * The function code of a pre-built handler. Bundles are built ahead of any synth: by `npm pack`
 * for the published package, and in a clone by `bin/app.ts` and the tests' setup whenever a source
 * is newer than its bundle.
 */
export function handlerCode(name: HandlerBundleName): Code {
  const dir = handlerBundleDir(name);
  if (!existsSync(path.join(dir, HANDLER_BUNDLE_FILE))) {
    throw new MissingHandlerBundleError(
      `GoalLoopFunction: the pre-built bundle of '${name}' is missing (${dir}); in a clone of goal-loops, build it with \`npm run build\``,
    );
  }
  return Code.fromAsset(dir);
}
