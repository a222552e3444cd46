import type { ToolRunner } from "../../core/ports/tool-runner";
import {
  type BuiltInToolRunnerOptions,
  createBuiltInToolRunner,
  DEFAULT_TOOL_OUTPUT_INLINE_BYTES,
} from "../../tools/built-in-tool-runner";
import { listEnv, positiveIntEnv } from "../handler-environment";

/**
 * The built-in tools as a step that runs them is deployed: HTTP_ALLOWED_HOSTS and
 * TOOL_OUTPUT_INLINE_BYTES come from the function's environment (LoopSteps sets both on every
 * function that acts: Act, and the steps that act on an ungated turn themselves, VerifyAndReason,
 * Execute and Attempt).
 */
export function toolRunnerFromEnv(ports: Pick<BuiltInToolRunnerOptions, "workspace" | "outbox">): ToolRunner {
  return createBuiltInToolRunner({
    ...ports,
    allowedHosts: listEnv("HTTP_ALLOWED_HOSTS"),
    inlineLimitBytes: positiveIntEnv("TOOL_OUTPUT_INLINE_BYTES", DEFAULT_TOOL_OUTPUT_INLINE_BYTES),
  });
}
