import { createHash, randomUUID } from "node:crypto";
import { type OutboxMessage, OutboxMessageSchema } from "../../lambdas/core/ports/outbox";
import { type StepRecord, StepRecordSchema } from "../../lambdas/core/ports/step-log";
import type { Writer } from "../../lambdas/core/ports/workspace";

const AT = "2026-01-01T00:00:00.000Z";

export function sha256Of(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The tool call that writes a workspace file. */
export function aWriter(overrides: Partial<Writer> = {}): Writer {
  return { runId: "run-1", iteration: 0, toolUseId: `tool-${randomUUID()}`, ...overrides };
}

/**
 * Step `step` of a goal: the model wrote haiku.txt with `workspace_write` and got a success back,
 * valid against StepRecordSchema. `note` goes into the turn's text so two records tell apart.
 */
export function aStepRecord(goalId: string, step: number, note = `step ${step}`): StepRecord {
  const haiku = "Tables hold the loop\nDynamoDB keeps each step\nNothing twice is paid";
  return StepRecordSchema.parse({
    goalId,
    step,
    runId: "run-1",
    iteration: step - 1,
    turn: {
      modelId: "scripted:haiku",
      stopReason: "tool_use",
      content: [
        { text: note },
        { toolUse: { toolUseId: `tool-${step}`, name: "workspace_write", input: { path: "haiku.txt" } } },
      ],
      usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
    toolResults: [{ toolUseId: `tool-${step}`, status: "success", content: [{ json: { version: step } }] }],
    observations: {
      artifacts: [{ path: "haiku.txt", sha256: sha256Of(haiku), content: haiku }],
      toolResults: [{ tool: "workspace_write", status: "success", sha256: sha256Of(`{"version":${step}}`) }],
    },
    at: AT,
  });
}

/** A `notify` message to #ops, valid against OutboxMessageSchema. */
export function anOutboxMessage(overrides: Partial<OutboxMessage> = {}): OutboxMessage {
  return OutboxMessageSchema.parse({
    messageId: `msg-${randomUUID()}`,
    goalId: `goal-${randomUUID()}`,
    tenantId: "tenant-a",
    channel: "#ops",
    message: "The haiku is written.",
    createdAt: AT,
    ...overrides,
  });
}
