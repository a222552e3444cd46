import { randomUUID } from "node:crypto";
import { EMPTY_USAGE, type GoalRecord, GoalRecordSchema } from "../../lambdas/core/goal/goal-record";
import { GoalSpecSchema } from "../../lambdas/core/goal/goal-spec";
import { MODEL_ROLES } from "../../lambdas/core/models/model-roles";

const CREATED_AT = "2026-01-01T00:00:00.000Z";

/**
 * A running ReAct goal with one artifact check, valid against GoalRecordSchema (parsed here, so a
 * schema change that breaks the default shows up as a clear failure in the test that builds one).
 * Built literally, not through the core's lifecycle functions.
 */
export function aGoalRecord(overrides: Partial<GoalRecord> = {}): GoalRecord {
  const goalId = overrides.goalId ?? `goal-${randomUUID()}`;
  return GoalRecordSchema.parse({
    goalId,
    tenantId: "tenant-a",
    status: "running",
    revision: 1,
    pattern: "react",
    patternReason: "requested",
    spec: GoalSpecSchema.parse({
      objective: "Write a haiku about DynamoDB to haiku.txt",
      successChecks: [
        {
          id: "haiku-written",
          description: "haiku.txt exists and mentions DynamoDB",
          verify: { kind: "artifact", path: "haiku.txt", contains: "DynamoDB" },
        },
      ],
      pattern: "react",
    }),
    runId: `run-${randomUUID()}`,
    runIteration: 0,
    activeTask: "reason",
    waitingFor: null,
    resumeCondition: null,
    steps: 0,
    noProgressCycles: 0,
    evidence: [],
    progressNotes: [],
    usage: EMPTY_USAGE,
    // zod 4's z.record over an enum wants every key, so the schema asks for all roles.
    usageByRole: Object.fromEntries(MODEL_ROLES.map((role) => [role, EMPTY_USAGE])),
    stopReason: null,
    inbox: [],
    revisionLog: [],
    lastEventSeq: 0,
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    ...overrides,
  });
}
