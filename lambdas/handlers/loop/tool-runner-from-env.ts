import { loadOnce } from "../../adapters/load-once";
import { traced } from "../../adapters/xray-subsegments";
import type { ToolRunner } from "../../core/ports/tool-runner";
import {
  type BuiltInToolRunnerOptions,
  createBuiltInToolRunner,
  DEFAULT_TOOL_OUTPUT_INLINE_BYTES,
} from "../../tools/built-in-tool-runner";
import { type LambdaInvoker, lambdaTool, parseLambdaToolManifest } from "../../tools/lambda-tool";
import { BUILT_IN_TOOLS, createToolRegistry, type RegisteredTool } from "../../tools/tool-registry";
import { listEnv, positiveIntEnv } from "../handler-environment";

/**
 * The user's Lambda tools (USER_TOOLS, set by the LambdaTools construct), each invoked through one
 * Lambda client, loaded on the first call: a goal that uses none never loads it.
 */
function userLambdaTools(): RegisteredTool[] {
  const entries = parseLambdaToolManifest(process.env.USER_TOOLS);
  if (entries.length === 0) return [];
  const invoker = loadOnce(async () =>
    (await import("../../adapters/lambda-tool-invoker")).createLambdaInvoker(),
  );
  const lazy: LambdaInvoker = { invoke: async (arn, event) => (await invoker()).invoke(arn, event) };
  return entries.map((entry) => lambdaTool(entry, lazy));
}

/**
 * The built-in tools and the user's Lambda tools (USER_TOOLS) as a step that runs them is deployed: HTTP_ALLOWED_HOSTS and
 * TOOL_OUTPUT_INLINE_BYTES come from the function's environment (LoopSteps sets both on every
 * function that acts: Act, and the steps that act on an ungated turn themselves, VerifyAndReason,
 * Execute and Attempt).
 */
export function toolRunnerFromEnv(ports: Pick<BuiltInToolRunnerOptions, "workspace" | "outbox">): ToolRunner {
  return withToolSubsegments(
    createBuiltInToolRunner({
      ...ports,
      registry: createToolRegistry([...BUILT_IN_TOOLS, ...userLambdaTools()]),
      allowedHosts: listEnv("HTTP_ALLOWED_HOSTS"),
      inlineLimitBytes: positiveIntEnv("TOOL_OUTPUT_INLINE_BYTES", DEFAULT_TOOL_OUTPUT_INLINE_BYTES),
    }),
  );
}

/** Each tool call as an X-Ray subsegment `Tool <name>`, searchable by goal and tool. */
function withToolSubsegments(runner: ToolRunner): ToolRunner {
  return {
    specsFor: (grantedTools) => runner.specsFor(grantedTools),
    riskOf: (call) => runner.riskOf(call),
    run: (call, context) =>
      traced(`Tool ${call.name}`, { goalId: context.goalId, tool: call.name }, () =>
        runner.run(call, context),
      ),
  };
}
