/**
 * An example Lambda tool (DESIGN §6 "Tools"): looks up a support ticket by id. goal-loops invokes
 * it with `{tool, input, goalId, runId, toolUseId, idempotencyKey, tenantId}`; it answers the ticket
 * as JSON, or `{error: {name, message}}`, which the model reads as the call's tool error.
 *
 * Declared in examples/goal-loops.tools.config.json; `npm start -- --config
 * examples/goal-loops.tools.config.json` bundles it from cdk.out and runs it in a sandbox of its
 * own, as `cdk deploy` would deploy it as a function whose role may only write its logs.
 */

interface Ticket {
  readonly id: string;
  readonly title: string;
  readonly status: "open" | "pending" | "closed";
  readonly priority: "low" | "normal" | "high";
  readonly customer: string;
  readonly lastUpdate: string;
}

/** The help desk this example serves: a real service would read its own table or API here. */
const TICKETS: readonly Ticket[] = [
  {
    id: "T-1042",
    title: "Payment page times out after 30 seconds",
    status: "open",
    priority: "high",
    customer: "Northwind",
    lastUpdate: "Customer reports checkout fails for every card since the 2.0 release.",
  },
  {
    id: "T-1043",
    title: "Invoice PDF shows the wrong VAT number",
    status: "pending",
    priority: "normal",
    customer: "Contoso",
    lastUpdate: "Waiting for the customer's corrected VAT id.",
  },
];

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
  const ticket = TICKETS.find((candidate) => candidate.id === ticketId);
  if (!ticket) return { error: { name: "TicketNotFound", message: `No ticket ${ticketId}` } };
  return { ticket };
}
