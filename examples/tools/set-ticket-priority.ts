import { type Priority, setPriority } from "./ticket-table";

/**
 * An example reversible Lambda tool: changes a ticket's priority in the tools' table and answers
 * the priority it replaced, which its compensate function (restore-ticket-priority.ts) puts back
 * when a corrective revision asks to undo it. The call's idempotency key makes a retried call
 * change nothing twice.
 */

interface ToolEvent {
  readonly input?: { readonly ticketId?: unknown; readonly priority?: unknown };
  readonly idempotencyKey?: string;
}

const PRIORITIES: readonly Priority[] = ["low", "normal", "high"];

export async function handler(event: ToolEvent) {
  const { ticketId, priority } = event.input ?? {};
  if (typeof ticketId !== "string" || !/^T-\d+$/.test(ticketId)) {
    return {
      error: {
        name: "InvalidTicketId",
        message: `ticketId must look like T-1042; got ${JSON.stringify(ticketId)}`,
      },
    };
  }
  if (!PRIORITIES.includes(priority as Priority)) {
    return {
      error: { name: "InvalidPriority", message: `priority must be one of ${PRIORITIES.join(", ")}` },
    };
  }
  const changed = await setPriority(ticketId, priority as Priority, event.idempotencyKey ?? "");
  if (!changed) return { error: { name: "TicketNotFound", message: `No ticket ${ticketId}` } };
  return { ticketId, ...changed };
}
