import { canonicalJson, sha256Hex } from "../../goal/canonical-json";
import type { FrozenTool } from "../../goal/frozen-tools";
import { type GoalChange, goalEvent, settle } from "../../goal/goal-change";
import type { ActionGate, GoalRecord } from "../../goal/goal-record";
import { lineagePosition, sameRun } from "../../goal/run-lineage";
import { clip } from "../../goal/text";
import { toolUsesOf } from "../../models/model-answer";
import type { ModelTurn, ToolUseBlock } from "../../ports/model-client";
import type { ToolRunner } from "../../ports/tool-runner";
import type { RunPosition } from "../step-result";

const SUMMARY_INPUT_CHARS = 300;

/**
 * The calls of a turn that need a human first (DESIGN §5): the tool is granted and either
 * irreversible for this input or listed in `approval.requireFor`, and not in `approval.preAuthorized`.
 * A call that would fail anyway (unknown tool, not granted, bad input) is not gated: Act answers it.
 */
export function gatedCalls(
  record: GoalRecord,
  turn: ModelTurn,
  tools: Pick<ToolRunner, "riskOf">,
  granted: readonly string[],
): ToolUseBlock[] {
  if (turn.stopReason === "max_tokens") return [];
  const { requireFor, preAuthorized } = record.spec.approval;
  return toolUsesOf(turn).filter(
    (call) =>
      granted.includes(call.name) &&
      !preAuthorized.includes(call.name) &&
      (requireFor.includes(call.name) || tools.riskOf(call, record.frozenTools) === "irreversible"),
  );
}

/**
 * The pending gate of a turn's gated calls: what the approval binds to and what a human reads. An
 * MCP tool's call binds to the tool's definition hash too, and the summary shows server, tool and
 * hash: the human approves this input to exactly this definition.
 */
export function pendingGate(
  position: RunPosition,
  calls: readonly ToolUseBlock[],
  frozenTools: readonly FrozenTool[] = [],
): ActionGate {
  const definitionOf = (name: string) => frozenTools.find((tool) => tool.name === name);
  const fingerprint = sha256Hex(
    canonicalJson(
      calls.map((call) => {
        const definition = definitionOf(call.name);
        return definition ? [call.name, call.input, definition.definitionHash] : [call.name, call.input];
      }),
    ),
  );
  const summary = calls
    .map((call) => {
      const input = JSON.stringify(call.input);
      const definition = definitionOf(call.name);
      const source = definition
        ? ` (MCP server ${definition.server}, tool ${definition.tool}, definition sha256 ${definition.definitionHash.slice(0, 12)})`
        : "";
      return `${call.name}${source} ${clip(input, SUMMARY_INPUT_CHARS)}`;
    })
    .join("; ")
    .slice(0, 2000);
  return {
    runId: position.runId,
    iteration: position.iteration,
    toolUseIds: calls.map((call) => call.toolUseId),
    fingerprint: `tools:${fingerprint}`,
    summary,
    calls: calls.map((call) => {
      const definition = definitionOf(call.name);
      return {
        name: call.name,
        input: call.input,
        ...(definition
          ? { server: definition.server, tool: definition.tool, definitionHash: definition.definitionHash }
          : {}),
      };
    }),
    outcome: "pending",
  };
}

/**
 * The goal's gate for this run and iteration, if the turn needed one: a gate asked for by any run of
 * the lineage in that iteration (a run that took over decides and acts on its predecessors' gate).
 */
export function gateOf(
  record: GoalRecord,
  position: Pick<RunPosition, "runId" | "iteration">,
): ActionGate | undefined {
  const gate = record.actionGate;
  return gate && sameRun(record, gate, position) ? gate : undefined;
}

/** The fingerprint prefix of a gate on a whole plan (plan_execute's plan approval), not on tool calls. */
export const PLAN_GATE_PREFIX = "plan:";

/** Whether the gate asks a human to approve a plan rather than a turn's tool calls. */
export function isPlanGate(gate: Pick<ActionGate, "fingerprint"> | null | undefined): boolean {
  return gate?.fingerprint.startsWith(PLAN_GATE_PREFIX) ?? false;
}

/** Where a decided gate goes on: Act runs (or refuses) the gated calls; a decided plan goes back to verify. */
export function nextAfterGate(gate: Pick<ActionGate, "fingerprint"> | null | undefined): "act" | "verify" {
  return isPlanGate(gate) ? "verify" : "act";
}

/**
 * Records the gate a step found for its turn or plan (no event: request-approval announces it),
 * under the run's lineage (see run-lineage.ts), so every run that takes the iteration over finds it.
 */
export function setGate(record: GoalRecord, gate: ActionGate, now: Date): GoalChange {
  return settle({ ...record, actionGate: lineagePosition(record, gate), updatedAt: now.toISOString() }, []);
}

/** Records a human's (or the clock's) answer on the gate; Act obeys it. */
export function decideGate(
  record: GoalRecord,
  outcome: Exclude<ActionGate["outcome"], "pending">,
  details: { decidedBy?: string; comment?: string },
  now: Date,
): GoalChange {
  const gate = record.actionGate;
  if (!gate) return settle(record, []);
  const decided: ActionGate = {
    ...gate,
    outcome,
    ...(details.decidedBy === undefined ? {} : { decidedBy: details.decidedBy }),
    ...(details.comment === undefined ? {} : { comment: details.comment.slice(0, 2000) }),
  };
  const next: GoalRecord = { ...record, actionGate: decided, updatedAt: now.toISOString() };
  return settle(next, [
    goalEvent(next, "gate.decided", now, {
      approvalId: gate.approvalId ?? null,
      outcome,
      toolUseIds: gate.toolUseIds,
      decidedBy: details.decidedBy ?? null,
    }),
  ]);
}

/** `approval` while the turn's gate waits for a human, else `act` (Act obeys a decided gate). */
export function gatedNext(record: GoalRecord, position: RunPosition): "approval" | "act" {
  return gateOf(record, position)?.outcome === "pending" ? "approval" : "act";
}
