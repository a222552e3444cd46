import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../../lambdas/core/goal/goal-change";
import {
  type CompensationRequest,
  compensateLastAction,
  type ToolCompensators,
} from "../../../lambdas/core/loop/revisions/compensate";
import { type StepRecord, StepRecordSchema } from "../../../lambdas/core/ports/step-log";
import { aGoalRecord } from "../../support/goal-record-builder";
import { aStepRecord } from "../../support/loop-store-builders";

/** Step `step`: the model called `tool` with `input`, which answered `answer` (or failed). */
function aToolStep(
  goalId: string,
  step: number,
  tool: string,
  input: JsonValue,
  answer: JsonValue,
  ok = true,
): StepRecord {
  const toolUseId = `tool-${step}`;
  return StepRecordSchema.parse({
    ...aStepRecord(goalId, step),
    turn: {
      modelId: "scripted:tickets",
      stopReason: "tool_use",
      content: [{ toolUse: { toolUseId, name: tool, input } }],
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
    toolResults: [{ toolUseId, status: ok ? "success" : "error", content: [{ json: answer }] }],
    observations: { artifacts: [], toolResults: [] },
  });
}

/** Compensators that record each request and answer what the test says. */
function recordingCompensators(answer: Awaited<ReturnType<ToolCompensators["compensate"]>>) {
  const requests: CompensationRequest[] = [];
  const compensators: ToolCompensators = {
    has: (tool) => tool === "set_ticket_priority",
    compensate: async (request) => {
      requests.push(request);
      return answer;
    },
  };
  return { requests, compensators };
}

const CORRECTION = {
  revisionId: "rev-7",
  revision: 2,
  content: "Undo the priority change",
  requestedAt: "2026-03-01T09:00:00.000Z",
};

describe("a corrective revision's compensation of a user tool's call", () => {
  const goal = aGoalRecord();

  function portsWith(steps: StepRecord[], compensators?: ToolCompensators) {
    return {
      workspace: {
        readFile: async () => undefined,
        writeFile: async () => Promise.reject(new Error("no write")),
        deleteFile: async () => Promise.reject(new Error("no delete")),
        readVersion: async () => undefined,
      },
      stepLog: { listRecentSteps: async () => steps },
      ...(compensators === undefined ? {} : { compensators }),
    };
  }

  it("asks the tool's compensate function to undo its last successful call, with the call's input and result", async () => {
    // Prepare: an earlier call, then the one to undo, then a failed one (nothing to undo there)
    const { requests, compensators } = recordingCompensators({
      ok: true,
      value: { restoredPriority: "high" },
    });
    const steps = [
      aToolStep(
        goal.goalId,
        1,
        "set_ticket_priority",
        { ticketId: "T-1", priority: "normal" },
        { previousPriority: "high" },
      ),
      aToolStep(
        goal.goalId,
        2,
        "set_ticket_priority",
        { ticketId: "T-1042", priority: "low" },
        { previousPriority: "high" },
      ),
      aToolStep(
        goal.goalId,
        3,
        "set_ticket_priority",
        { ticketId: "T-9", priority: "low" },
        { error: "x" },
        false,
      ),
    ];

    // Act
    const outcome = await compensateLastAction(portsWith(steps, compensators), goal, CORRECTION);
    const again = await compensateLastAction(portsWith(steps, compensators), goal, CORRECTION);

    // Assess
    expect(outcome).toEqual({
      tool: "set_ticket_priority",
      step: 2,
      toolUseId: "tool-2",
      action: "compensated",
      result: { restoredPriority: "high" },
    });
    expect(requests[0]).toEqual({
      tool: "set_ticket_priority",
      input: { ticketId: "T-1042", priority: "low" },
      result: [{ json: { previousPriority: "high" } }],
      goalId: goal.goalId,
      runId: goal.runId,
      tenantId: goal.tenantId,
      toolUseId: "tool-2",
      idempotencyKey: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // A retried compensation carries the same key, so the function can do its work once
    expect(again).toEqual(outcome);
    expect(requests[1]?.idempotencyKey).toBe(requests[0]?.idempotencyKey);
  });

  it("reports a failed undo on the outcome instead of failing the step", async () => {
    // Prepare
    const { compensators } = recordingCompensators({ ok: false, error: "TicketNotFound: No ticket T-1042" });
    const steps = [
      aToolStep(goal.goalId, 1, "set_ticket_priority", { ticketId: "T-1042", priority: "low" }, {}),
    ];

    // Act
    const outcome = await compensateLastAction(portsWith(steps, compensators), goal, CORRECTION);

    // Assess
    expect(outcome).toMatchObject({ action: "failed", note: "TicketNotFound: No ticket T-1042" });
  });

  it("finds nothing to undo for a tool without a compensate function", async () => {
    // Prepare
    const steps = [aToolStep(goal.goalId, 1, "lookup_ticket", { ticketId: "T-1042" }, { ticket: {} })];

    // Act
    const outcome = await compensateLastAction(
      portsWith(steps, recordingCompensators({ ok: true, value: null }).compensators),
      goal,
      CORRECTION,
    );

    // Assess
    expect(outcome).toEqual({ action: "none", note: "no reversible action to compensate" });
  });
});
