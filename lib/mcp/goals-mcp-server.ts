import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { GoalLoopsApiError } from "../client/client-errors";
import type { GoalLoopsClient } from "../client/goal-loops-client";
import {
  DecideApprovalInput,
  GoalRefInput,
  ListApprovalsInput,
  ReasonedControlInput,
  ReviseGoalInput,
  StartGoalInput,
  WaitForGoalInput,
} from "./tool-inputs";
import { waitForGoal } from "./wait-for-goal";

export const MCP_SERVER_NAME = "goal-loops";

/**
 * Goals as an MCP server: every tool and resource is one call of the goals HTTP API through
 * `client`, so it runs with the identity the client carries (the caller's SigV4 credentials, its
 * bearer token, or the local stack's one tenant) and can do nothing that caller could not do over
 * HTTP. A refused call (404, 409, 400 …) is a tool error carrying the API's code and message.
 *
 * Annotations are honest: reads are read-only; start_goal adds a goal and destroys nothing;
 * decide_approval, revise_goal, pause_goal, resume_goal and cancel_goal change what a running goal
 * does and are destructive (hosts ask a human before calling them).
 */
export function createGoalsMcpServer(client: GoalLoopsClient, version: string): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version },
    { capabilities: { tools: {}, resources: {} } },
  );

  server.registerTool(
    "start_goal",
    {
      title: "Start a goal",
      description:
        "Start a goal-directed agent loop from a GoalSpec (objective, success checks, limits …). Answers at once with the goal id; follow it with wait_for_goal.",
      inputSchema: StartGoalInput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    (spec) => answer(() => client.startGoal(spec)),
  );

  server.registerTool(
    "get_goal",
    {
      title: "Get a goal",
      description:
        "The goal's snapshot: status, progress per success check, what it waits for, usage and cost.",
      inputSchema: GoalRefInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ goalId }) => answer(() => client.getGoal(goalId)),
  );

  server.registerTool(
    "wait_for_goal",
    {
      title: "Wait for a goal",
      description:
        "Wait until the goal ends, changes status (e.g. starts waiting for an approval) or the timeout passes, then answer its snapshot and why it answered. Sends progress notifications (checks met of all checks) when the call carries a progress token.",
      inputSchema: WaitForGoalInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ goalId, timeoutSeconds }, extra) =>
      answer(async () => {
        const progressToken = extra._meta?.progressToken;
        const { outcome, snapshot } = await waitForGoal(
          client,
          { goalId, timeoutSeconds, signal: extra.signal },
          async ({ met, total }) => {
            if (progressToken === undefined) return;
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken, progress: met, total, message: `${met} of ${total} checks met` },
            });
          },
        );
        return { outcome, goal: snapshot };
      }),
  );

  server.registerTool(
    "list_approvals",
    {
      title: "List approvals",
      description:
        "The caller's approvals (pending by default): what each gated action would do, and until when.",
      inputSchema: ListApprovalsInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ status }) => answer(async () => ({ items: await client.listApprovals(status) })),
  );

  server.registerTool(
    "decide_approval",
    {
      title: "Approve or reject",
      description:
        "Decide an approval: `decision` is required (approve or reject), never implied. Approving lets the goal run the gated, possibly irreversible action.",
      inputSchema: DecideApprovalInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    ({ approvalId, decision, comment }) =>
      answer(async () => ({ approval: await client.decideApproval(approvalId, decision, comment) })),
  );

  server.registerTool(
    "revise_goal",
    {
      title: "Revise a goal",
      description:
        "Queue a revision (add_constraint, redirect, corrective …); applied at the goal's next step boundary. A redirect changes the contract.",
      inputSchema: ReviseGoalInput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ goalId, revision }) => answer(() => client.revise(goalId, revision)),
  );

  server.registerTool(
    "pause_goal",
    {
      title: "Pause a goal",
      description: "Pause a running or waiting goal at its next step boundary; resume_goal continues it.",
      inputSchema: ReasonedControlInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ goalId, reason }) => answer(() => client.pause(goalId, reason)),
  );

  server.registerTool(
    "resume_goal",
    {
      title: "Resume a goal",
      description: "Resume a paused goal in a new run from its checkpoint.",
      inputSchema: GoalRefInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ goalId }) => answer(() => client.resume(goalId)),
  );

  server.registerTool(
    "cancel_goal",
    {
      title: "Cancel a goal",
      description: "Cancel a goal that is not final. Final: a cancelled goal never runs again.",
      inputSchema: ReasonedControlInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ goalId, reason }) => answer(() => client.cancel(goalId, reason)),
  );

  server.registerResource(
    "goal",
    new ResourceTemplate("goal://{goalId}", { list: undefined }),
    { title: "A goal's snapshot", mimeType: "application/json" },
    async (uri, { goalId }) => jsonResource(uri, await client.getGoal(String(goalId))),
  );

  server.registerResource(
    "goal-events",
    new ResourceTemplate("goal://{goalId}/events", { list: undefined }),
    {
      title: "A goal's events (the first page; nextSeq says where the next starts)",
      mimeType: "application/json",
    },
    async (uri, { goalId }) => jsonResource(uri, await client.listEvents(String(goalId), 0)),
  );

  return server;
}

function jsonResource(uri: URL, value: unknown) {
  return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(value) }] };
}

/** A tool's answer: the API's JSON as structured content and as text; an API refusal as a tool error. */
async function answer(call: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const value = await call();
    const structured = (typeof value === "object" && value !== null ? value : { value }) as Record<
      string,
      unknown
    >;
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: structured };
  } catch (error) {
    if (!(error instanceof GoalLoopsApiError)) throw error;
    const issues = (error.body.issues ?? []).map((issue) => `${issue.path}: ${issue.message}`);
    return {
      isError: true,
      content: [{ type: "text", text: [`${error.code}: ${error.body.message}`, ...issues].join("\n") }],
      structuredContent: { error: error.body },
    };
  }
}
