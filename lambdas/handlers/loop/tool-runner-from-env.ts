import { lazyLambdaInvoker } from "../../adapters/lambda/lazy-lambda-invoker";
import { notifySenderFromEnv } from "../../adapters/notify/notify-senders";
import { traced } from "../../adapters/shared/xray-subsegments";
import { ValidationError } from "../../core/goal/errors";
import type { ToolRunner } from "../../core/ports/tool-runner";
import type { NotifyPolicy } from "../../tools/built-in-tool";
import {
  type BuiltInToolRunnerOptions,
  createBuiltInToolRunner,
  DEFAULT_TOOL_OUTPUT_INLINE_BYTES,
} from "../../tools/built-in-tool-runner";
import { lambdaTool, parseLambdaToolManifest } from "../../tools/lambda-tool";
import { lambdaMcpGateway } from "../../tools/mcp-gateway-client";
import type { McpGatewayClient } from "../../tools/mcp-gateway-contract";
import { notifyChannelsFromEnv } from "../../tools/notify-destinations";
import { BUILT_IN_TOOLS, createToolRegistry, type RegisteredTool } from "../../tools/tool-registry";
import { listEnv, positiveIntEnv } from "../handler-environment";

/**
 * The user's Lambda tools (USER_TOOLS, set by the LambdaTools construct): a goal that uses none
 * never loads the Lambda client.
 */
function userLambdaTools(): RegisteredTool[] {
  return parseLambdaToolManifest(process.env.USER_TOOLS).map((entry) => lambdaTool(entry, lazyLambdaInvoker));
}

/** The McpGateway function (MCP_GATEWAY_FUNCTION, set by the McpServers construct), if MCP servers are configured. */
export function mcpGatewayFromEnv(): McpGatewayClient | undefined {
  const functionArn = process.env.MCP_GATEWAY_FUNCTION;
  return functionArn ? lambdaMcpGateway(functionArn, lazyLambdaInvoker) : undefined;
}

/**
 * How `notify` delivers: `NOTIFY_TOOL_DELIVERY` (`send` or `outbox`) when set, else as the
 * approval requests do: the outbox when `NOTIFY_DELIVERY=outbox` (the local runtime), else send.
 * The local runtime sets `send` only when its Slack and SES endpoints point at fakes (e2e tests).
 */
export function notifyPolicyFromEnv(env: Readonly<Record<string, string | undefined>>): NotifyPolicy {
  const chosen = env.NOTIFY_TOOL_DELIVERY?.trim() || (env.NOTIFY_DELIVERY === "outbox" ? "outbox" : "send");
  if (chosen !== "outbox" && chosen !== "send") {
    throw new ValidationError(
      `Environment variable NOTIFY_TOOL_DELIVERY must be 'send' or 'outbox', not '${chosen}'`,
      [{ path: "NOTIFY_TOOL_DELIVERY", message: "must be 'send' or 'outbox'" }],
    );
  }
  return {
    mode: chosen,
    channels: notifyChannelsFromEnv(env.NOTIFY_CHANNELS),
    send: notifySenderFromEnv(env),
  };
}

/**
 * The built-in tools, the user's Lambda tools (USER_TOOLS) and the goal's frozen MCP tools (run
 * through MCP_GATEWAY_FUNCTION) as a step that runs them is deployed: HTTP_ALLOWED_HOSTS and
 * TOOL_OUTPUT_INLINE_BYTES come from the function's environment (LoopSteps sets both on every
 * function that acts: Act, and the steps that act on an ungated turn themselves, VerifyAndReason,
 * Execute and Attempt), and so do `notify`'s channels and senders (GoalLoops adds those).
 */
export function toolRunnerFromEnv(ports: Pick<BuiltInToolRunnerOptions, "workspace" | "outbox">): ToolRunner {
  const mcpGateway = mcpGatewayFromEnv();
  return withToolSubsegments(
    createBuiltInToolRunner({
      ...ports,
      registry: createToolRegistry([...BUILT_IN_TOOLS, ...userLambdaTools()]),
      allowedHosts: listEnv("HTTP_ALLOWED_HOSTS"),
      inlineLimitBytes: positiveIntEnv("TOOL_OUTPUT_INLINE_BYTES", DEFAULT_TOOL_OUTPUT_INLINE_BYTES),
      notify: notifyPolicyFromEnv(process.env),
      ...(mcpGateway === undefined ? {} : { mcpGateway }),
    }),
  );
}

/** Each tool call as an X-Ray subsegment `Tool <name>`, searchable by goal and tool. */
function withToolSubsegments(runner: ToolRunner): ToolRunner {
  return {
    specsFor: (grantedTools, frozenTools) => runner.specsFor(grantedTools, frozenTools),
    riskOf: (call, frozenTools) => runner.riskOf(call, frozenTools),
    ...(runner.stage ? { stage: runner.stage } : {}),
    run: (call, context) =>
      traced(`Tool ${call.name}`, { goalId: context.goalId, tool: call.name }, () =>
        runner.run(call, context),
      ),
  };
}
