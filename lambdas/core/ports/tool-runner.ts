import { canonicalJson, sha256Hex } from "../goal/canonical-json";
import type { ArtifactObservation, ToolResultObservation } from "../goal/evidence/cycle-observations";
import type { FrozenTool } from "../goal/frozen-tools";
import type * as z from "../zod";
import type { ToolResultBlock, ToolSpec, ToolUseBlock } from "./model-client";

/** How much a tool can change the world. Risk decides whether a call needs a human approval gate. */
export type ToolRisk = "read" | "reversible" | "irreversible";

/** Everything a tool call needs to know about where it runs. */
export interface ToolCallContext {
  readonly goalId: string;
  readonly tenantId: string;
  readonly runId: string;
  readonly iteration: number;
  /** Tools the goal may use (GoalSpec `tools`, or the default set). */
  readonly grantedTools: readonly string[];
  /** The MCP tools frozen into the goal when it started (their definitions as the model saw them). */
  readonly frozenTools?: readonly FrozenTool[];
  /** Irreversible tools the goal pre-authorized: they run without an approval gate. */
  readonly preAuthorized: readonly string[];
  /** toolUseIds a human approved in this iteration's gate: these irreversible calls may run (once). */
  readonly approvedCalls?: readonly string[];
  /** True when the model's turn ended on `max_tokens`: its tool calls may be cut off. */
  readonly truncated: boolean;
  /**
   * This call's idempotency key (`toolCallIdempotencyKey`): every attempt of the same call carries
   * the same key, so a tool with side effects does them once though a retried Act runs it again.
   */
  readonly idempotencyKey: string;
}

/** The context of the calls a step stages (ToolRunner.stage): each call's own key is derived. */
export type StagingContext = Omit<ToolCallContext, "idempotencyKey">;

/**
 * The idempotency key of one tool call: a hash of the goal, the run and iteration whose turn asked
 * for the call, and the call's toolUseId. Never from a clock or a random source, so a retry, a redrive
 * or a restart that runs the call again derives the same key.
 */
export function toolCallIdempotencyKey(call: {
  readonly goalId: string;
  readonly runId: string;
  readonly iteration: number;
  readonly toolUseId: string;
}): string {
  return sha256Hex(canonicalJson(["tool-call", call.goalId, call.runId, call.iteration, call.toolUseId]));
}

/** What one tool call produced: the result for the model, and what verify may count as evidence. */
export interface ToolOutcome {
  /** The toolResult block sent back to the model (errors included: a bad call is never a crash). */
  readonly result: ToolResultBlock;
  /** Stable error name when the call failed (`UnknownTool`, `ToolNotGranted`, `InvalidToolInput` …). */
  readonly errorName?: string;
  /** The recorded tool result (for `tool_result` checks and progress fingerprints). */
  readonly observation: ToolResultObservation;
  /** Workspace files the call wrote or created as artifacts (for `artifact` checks). */
  readonly artifacts: readonly ArtifactObservation[];
}

/** A tool as registered: the zod schema is the single source of its input shape. */
export interface ToolDefinition<S extends z.core.$ZodType = z.core.$ZodType> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: S;
  readonly risk: ToolRisk | ((input: z.output<S>) => ToolRisk);
}

/** The port the loop uses to offer tools to the model and to run the calls it makes. */
export interface ToolRunner {
  /** Tool specs (JSON Schema inputs) for the tools granted to a goal, in a stable order. */
  specsFor(grantedTools: readonly string[], frozenTools?: readonly FrozenTool[]): readonly ToolSpec[];
  /**
   * The risk of one call (a tool's risk may depend on its input: http_request GET is `read`), or
   * undefined for an unknown tool or invalid input (the call fails in Act without running).
   */
  riskOf(call: ToolUseBlock, frozenTools?: readonly FrozenTool[]): ToolRisk | undefined;
  /** Runs one call. Never throws for a bad call; throws only for infrastructure failures. */
  run(call: ToolUseBlock, context: ToolCallContext): Promise<ToolOutcome>;
  /**
   * Does ahead what running `calls` starts with and is safe before the step commits to running
   * them, while it commits (a workspace write keeps the version it will replace): nothing anyone
   * sees, nothing that needs undoing when the calls never run. Never rejects. Optional.
   */
  stage?(calls: readonly ToolUseBlock[], context: StagingContext): Promise<void>;
}
