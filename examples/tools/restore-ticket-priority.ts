import { type Priority, setPriority } from "./ticket-table";

/**
 * The compensate function of set_ticket_priority: a corrective revision calls it with the call to
 * undo — `{tool, input, result, goalId, runId, toolUseId, idempotencyKey, tenantId}`, `result`
 * being what the call answered (its toolResult content) — and it puts back the priority that call
 * replaced. Its own idempotency key makes a retried compensation restore once.
 */

interface CompensateEvent {
  readonly input?: { readonly ticketId?: unknown };
  readonly result?: unknown;
  readonly idempotencyKey?: string;
}

/** `previousPriority` from the toolResult content (`[{json: {...}}]`) the tool answered. */
function previousPriorityOf(result: unknown): Priority | undefined {
  const blocks = Array.isArray(result) ? result : [];
  for (const block of blocks) {
    const json = (block as { json?: { previousPriority?: unknown } } | null)?.json;
    const previous = json?.previousPriority;
    if (previous === "low" || previous === "normal" || previous === "high") return previous;
  }
  return undefined;
}

export async function handler(event: CompensateEvent) {
  const ticketId = event.input?.ticketId;
  const previous = previousPriorityOf(event.result);
  if (typeof ticketId !== "string" || previous === undefined) {
    return {
      error: { name: "NothingToRestore", message: "the call answered no ticket and previous priority" },
    };
  }
  const restored = await setPriority(ticketId, previous, event.idempotencyKey ?? "");
  if (!restored) return { error: { name: "TicketNotFound", message: `No ticket ${ticketId}` } };
  return { ticketId, restoredPriority: previous };
}
