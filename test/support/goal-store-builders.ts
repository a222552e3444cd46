import { randomBytes, randomUUID } from "node:crypto";
import type { NewGoalEvent } from "../../lambdas/core/goal/goal-event";
import { approvalIdFromBytes } from "../../lambdas/core/goal/goal-ids";
import type { ModelRole } from "../../lambdas/core/models/model-roles";
import {
  type Approval,
  ApprovalSchema,
  type ModelCheckpoint,
  ModelCheckpointSchema,
} from "../../lambdas/core/ports/goal-store";

const AT = "2026-01-01T00:00:00.000Z";

/** A pending approval for an irreversible `notify` call, valid against ApprovalSchema. */
export function anApproval(overrides: Partial<Approval> = {}): Approval {
  return ApprovalSchema.parse({
    approvalId: approvalIdFromBytes(randomBytes(16)),
    goalId: `goal-${randomUUID()}`,
    tenantId: "tenant-a",
    runId: "run-1",
    status: "pending",
    action: { kind: "tool", summary: "notify #ops", fingerprint: "sha256:abc" },
    revision: 1,
    taskToken: `token-${randomUUID()}`,
    requestedAt: AT,
    expiresAt: "2026-01-02T00:00:00.000Z",
    ...overrides,
  });
}

/** A checkpointed text answer of one model call, valid against ModelCheckpointSchema. */
export function aCheckpoint(
  key: { goalId: string; runId?: string; iteration?: number; role?: ModelRole; ordinal?: number },
  answer = "I will write the haiku now.",
): ModelCheckpoint {
  return ModelCheckpointSchema.parse({
    key: { runId: "run-1", iteration: 0, role: "reason", ordinal: 0, ...key },
    call: 0,
    turn: {
      modelId: "scripted:haiku",
      stopReason: "end_turn",
      content: [{ text: answer }],
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
    costUsd: 0.0001,
    createdAt: AT,
  });
}

/** `count` events of `type`, each with an extra field, as the core would hand them to the store. */
export function someEvents(count: number, type = "step.completed"): NewGoalEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    type,
    at: AT,
    runId: "run-1",
    detail: { index, note: `event ${index}` },
  }));
}
