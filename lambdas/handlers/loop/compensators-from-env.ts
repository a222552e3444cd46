import { lazyLambdaInvoker } from "../../adapters/lambda/lazy-lambda-invoker";
import type { ToolCompensators } from "../../core/loop/revisions/compensate";
import { lambdaCompensators, parseCompensatorManifest } from "../../tools/lambda-compensators";

/**
 * The user tools' compensate functions (TOOL_COMPENSATORS, set by the LambdaTools construct on the
 * steps that apply revisions: VerifyAndReason, Observe, Evaluate), if any. Their Lambda client loads
 * on the first compensation: most goals never have one.
 */
export function compensatorsFromEnv(): ToolCompensators | undefined {
  return lambdaCompensators(parseCompensatorManifest(process.env.TOOL_COMPENSATORS), lazyLambdaInvoker);
}
