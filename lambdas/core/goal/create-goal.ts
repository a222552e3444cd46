import type { FrozenTool } from "./frozen-tools";
import { type GoalChange, goalEvent, settle } from "./goal-change";
import { EMPTY_USAGE, type GoalRecord } from "./goal-record";
import { type GoalSpec, type Pattern, parseGoalSpec } from "./goal-spec";
import type { VersionTarget } from "./runs-on";

/** The step a new run starts with: load the goal, apply queued revisions, check limits. */
export const FIRST_TASK = "load";

export interface CreateGoalInput {
  readonly spec: GoalSpec;
  readonly goalId: string;
  readonly tenantId: string;
  readonly runId: string;
  readonly now: Date;
  /** The pattern the selector chose (see `selectPattern`) and why. */
  readonly pattern: Pattern;
  readonly patternReason: string;
  /** The granted MCP tools, listed from their servers at intake. */
  readonly frozenTools?: readonly FrozenTool[];
  /**
   * The deployed version the goal will run on, and the record schema that version reads (the
   * goal's records are stored in it). Absent: no version (a test, a tool), this code's schema.
   */
  readonly target?: VersionTarget;
}

/** A new goal at revision 1, running its first run, and the `goal.created` event that records why. */
export function createGoalRecord(input: CreateGoalInput): GoalChange {
  const spec = parseGoalSpec(input.spec);
  const at = input.now.toISOString();
  const record: GoalRecord = {
    goalId: input.goalId,
    tenantId: input.tenantId,
    status: "running",
    revision: 1,
    pattern: input.pattern,
    patternReason: input.patternReason,
    spec,
    ...(input.frozenTools === undefined ? {} : { frozenTools: [...input.frozenTools] }),
    runId: input.runId,
    runIteration: 0,
    activeTask: FIRST_TASK,
    waitingFor: null,
    resumeCondition: null,
    steps: 0,
    noProgressCycles: 0,
    evidence: [],
    progressNotes: [],
    usage: { ...EMPTY_USAGE },
    usageByRole: {},
    stopReason: null,
    inbox: [],
    revisionLog: [],
    contextNotes: [],
    pendingCorrections: [],
    lastCycle: null,
    replans: 0,
    attempts: 0,
    ...(input.target === undefined
      ? {}
      : {
          schema: input.target.schema,
          runsOn: {
            version: input.target.version,
            stateMachineVersionArn: input.target.stateMachineVersionArn,
          },
        }),
    lastEventSeq: 0,
    createdAt: at,
    updatedAt: at,
  };
  const created = goalEvent(record, "goal.created", input.now, {
    tenantId: record.tenantId,
    revision: 1,
    objective: spec.objective,
    requestedPattern: spec.pattern,
    pattern: record.pattern,
    patternReason: record.patternReason,
    successChecks: spec.successChecks.map((check) => check.id),
    version: input.target?.version ?? null,
    ...(input.frozenTools === undefined
      ? {}
      : {
          mcpTools: input.frozenTools.map((tool) => ({
            name: tool.name,
            risk: tool.risk,
            riskReason: tool.riskReason,
            definitionHash: tool.definitionHash,
          })),
        }),
  });
  return settle(record, [created]);
}
