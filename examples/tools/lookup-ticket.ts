import { getTicket } from "./ticket-table";

/**
 * An example Lambda tool (DESIGN §6 "Tools"): looks up a support ticket by id in the tools' own
 * DynamoDB table. goal-loops invokes it with `{tool, input, goalId, runId, toolUseId,
 * idempotencyKey, tenantId}`; it answers the ticket as JSON, or `{error: {name, message}}`, which
 * the model reads as the call's tool error.
 *
 * Declared in examples/goal-loops.tools.config.json; `npm start -- --config
 * examples/goal-loops.tools.config.json` bundles it from cdk.out and runs it in a sandbox of its
 * own, as `cdk deploy` deploys it: a function whose role may write its logs and use its table.
 */

interface ToolEvent {
  readonly tool?: string;
  readonly input?: { readonly ticketId?: unknown };
}

export async function handler(event: ToolEvent) {
  const ticketId = event.input?.ticketId;
  if (typeof ticketId !== "string" || !/^T-\d+$/.test(ticketId)) {
    return {
      error: {
        name: "InvalidTicketId",
        message: `ticketId must look like T-1042; got ${JSON.stringify(ticketId)}`,
      },
    };
  }
  const ticket = await getTicket(ticketId);
  if (!ticket) return { error: { name: "TicketNotFound", message: `No ticket ${ticketId}` } };
  return { ticket };
}
