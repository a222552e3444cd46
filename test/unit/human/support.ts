import { randomBytes, randomUUID } from "node:crypto";
import { approvalIdFromBytes } from "../../../lambdas/core/goal/goal-ids";
import type { HumanInputEvent } from "../../../lambdas/core/human/human-input-events";
import type { Approval } from "../../../lambdas/core/ports/goal-store";
import type { HumanInputPublisher } from "../../../lambdas/core/ports/human-input-publisher";

/** A publisher that records every event, and fails the first `failures` publishes. */
export class RecordingPublisher implements HumanInputPublisher {
  readonly events: HumanInputEvent[] = [];

  constructor(private failures = 0) {}

  async publish(event: HumanInputEvent): Promise<void> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error("bus unavailable");
    }
    this.events.push(event);
  }
}

export const SECRET_TOKEN = `token-${randomUUID()}-never-shown`;

/** A pending approval of a `notify` call for `goalId`, requested at `requestedAt`, valid one hour. */
export function aPendingApproval(goalId: string, overrides: Partial<Approval> = {}): Approval {
  const requestedAt = new Date("2026-03-01T09:00:00.000Z");
  return {
    approvalId: approvalIdFromBytes(randomBytes(16)),
    goalId,
    tenantId: "tenant-1",
    runId: "r1",
    status: "pending",
    action: { kind: "tool", summary: "notify #ops", fingerprint: "notify:abc" },
    revision: 1,
    taskToken: SECRET_TOKEN,
    requestedAt: requestedAt.toISOString(),
    expiresAt: new Date(requestedAt.getTime() + 3_600_000).toISOString(),
    ...overrides,
  };
}
