import type { FrozenTool } from "./frozen-tools";
import { type GoalChange, goalEvent, settle } from "./goal-change";
import { EMPTY_USAGE, type GoalRecord } from "./goal-record";
import { type GoalSpec, type Pattern, parseGoalSpec } from "./goal-spec";
import { RECORD_SCHEMA } from "./record-schema";
import type { RunsOn, VersionTarget } from "./runs-on";

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

/**
 * What a new record says of the version its goal runs on: `runsOn`, and `schema` when that version
 * reads an older record schema than this code's (absent: this code's, as on every record read in it).
 */
export function runsOnFields(target: VersionTarget | undefined): { runsOn?: RunsOn; schema?: number } {
  if (target === undefined) return {};
  const runsOn = { version: target.version, stateMachineVersionArn: target.stateMachineVersionArn };
  // Stored in the older of the two shapes: the version's own (its steps read no newer one), or this
  // code's when the version is newer (its steps read this one, and keep writing it).
  const schema = Math.min(target.schema, RECORD_SCHEMA);
  return schema === RECORD_SCHEMA ? { runsOn } : { runsOn, schema };
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
    ...runsOnFields(input.target),
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
