import { isDeepStrictEqual } from "node:util";
import { createGoalRecord } from "../goal/create-goal";
import { GoalLoopsError, ValidationError } from "../goal/errors";
import type { GoalChange } from "../goal/goal-change";
import type { GoalRecord } from "../goal/goal-record";
import type { Pattern } from "../goal/goal-spec";
import { type GoalSpec, parseGoalSpec } from "../goal/goal-spec";
import type { VersionTarget } from "../goal/runs-on";
import { assertModelsAllowed } from "../models/model-allow-list";
import { recordModelUsage } from "../models/model-prices";
import { MODEL_ROLES } from "../models/model-roles";
import { thinkingProblem, thinkingSettingFor } from "../models/model-thinking";
import { type ModelTiers, modelIdFor } from "../models/model-tiers";
import type { McpCatalog } from "../ports/mcp-catalog";
import { freezeGrantedMcpTools, isMcpGrant } from "./freeze-mcp-tools";
import { type PatternChoice, selectPattern } from "./pattern-selector";
import type { ModelSelection } from "./select-call";

/** The first run of every goal; resume and continue-as-new number the next ones r2, r3, … */
export const FIRST_RUN_ID = "r1";

/** What the selector's fallback adds to `patternReason` when the `select` model role was not called. */
export const SELECT_FALLBACK_NOTE = "fallback used: no model was asked to select";
/** What it adds when the `select` call was made and failed (the API logs why). */
export const SELECT_FAILED_NOTE = "fallback used: the select call failed";

export interface GoalIntakeInput {
  /** The submitted GoalSpec, not yet validated (a parsed request body). */
  readonly body: unknown;
  readonly goalId: string;
  readonly tenantId: string;
  readonly now: Date;
  /** The deployment's model allow-list; a GoalSpec `models` entry outside it is a ValidationError. */
  readonly allowedModelIds?: readonly string[];
  /**
   * The deployment's models and thinking settings: each role's thinking (the GoalSpec's over the
   * deployment's) must be one its model takes, else a ValidationError names the field. Absent: not checked.
   */
  readonly tiers?: ModelTiers;
  /**
   * Every tool a goal may be granted (the built-ins and the deployment's own); a GoalSpec `tools`
   * entry outside it is a ValidationError naming `tools.<index>`. Absent: not checked.
   */
  readonly knownTools?: readonly string[];
  /**
   * The deployment's MCP servers: a GoalSpec may grant their tools (`<server>__<tool>`,
   * `<server>__*`), which are listed now and frozen into the goal. Absent: no MCP tools.
   */
  readonly mcp?: McpCatalog;
  /**
   * Asks the `select` model role when no selector rule applies (see `selectWithModel`). Without it,
   * or when it answers nothing (the call failed), the selector's fallback stands and the reason says which.
   */
  readonly select?: (spec: GoalSpec, fallback: PatternChoice) => Promise<ModelSelection | undefined>;
  /**
   * The deployed version a goal of the chosen pattern starts on (the pattern's live alias), asked once
   * the pattern is chosen; the record says so (`runsOn`) and is stored in that version's schema.
   * Absent, or answering undefined (the pattern is not deployed): the record names no version.
   */
  readonly target?: (pattern: Pattern) => Promise<VersionTarget | undefined>;
}

/**
 * Turns a submitted GoalSpec into a new goal running its first run: validates it (ValidationError
 * naming each bad field, a model outside the allow-list included), chooses the pattern — hints and
 * rules first, the `select` role only when no rule applies — and records which and why in the
 * record and its first event (`goal.created`); a select call's usage is counted on the goal.
 */
export async function intakeGoal(input: GoalIntakeInput): Promise<GoalChange> {
  const spec = parseSubmittedGoalSpec(input.body);
  if (input.allowedModelIds !== undefined) assertModelsAllowed(spec, input.allowedModelIds);
  if (input.tiers !== undefined) assertThinkingTaken(spec, input.tiers);
  if (input.knownTools !== undefined) assertToolsKnown(spec, input.knownTools, input.mcp);
  // Before the select call: a goal whose tools cannot be listed is refused without paying for one.
  const frozenTools = await freezeGrantedMcpTools(spec.tools ?? [], input.mcp);
  const rules = selectPattern(spec);
  const select = rules.needsModel ? input.select : undefined;
  const selection = select && (await select(spec, rules));
  const choice = selection?.choice ?? rules;
  const note = select ? SELECT_FAILED_NOTE : SELECT_FALLBACK_NOTE;
  const patternReason = choice.needsModel ? `${choice.reason}; ${note}` : choice.reason;
  const target = await input.target?.(choice.pattern);
  const created = createGoalRecord({
    spec,
    goalId: input.goalId,
    tenantId: input.tenantId,
    runId: FIRST_RUN_ID,
    now: input.now,
    pattern: choice.pattern,
    patternReason,
    ...(frozenTools.length === 0 ? {} : { frozenTools }),
    ...(target === undefined ? {} : { target }),
  });
  if (!selection) return created;
  const { turn } = selection.checkpoint;
  const counted = recordModelUsage(created.record, "select", turn, input.now);
  return { record: counted.record, events: [...created.events, ...counted.events] };
}

/** GoalSpec fields only the system sets: a sub-goal's parent and its depth below the goal a user posted. */
const SYSTEM_FIELDS: Readonly<Record<string, string>> = {
  parentGoalId:
    "is set by the system for a sub-goal (spawn_subgoal, or a plan step's subgoal); a submitted GoalSpec may not set it",
  depth:
    "is set by the system for a sub-goal (its depth below the goal a user posted); a GoalSpec may not set it",
  forkedFrom:
    "is set by the system for a fork (POST /goals/{goalId}/fork); a submitted GoalSpec may not set it",
};

/**
 * A GoalSpec as a user submits it (`POST /goals`): `parentGoalId`, `depth` and `forkedFrom` are refused with a
 * ValidationError naming the field, whatever else is wrong; then the GoalSpec is parsed as usual.
 */
export function parseSubmittedGoalSpec(body: unknown): GoalSpec {
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    const issues = Object.keys(SYSTEM_FIELDS)
      .filter((field) => Object.hasOwn(body, field))
      .map((field) => ({ path: field, message: SYSTEM_FIELDS[field] ?? "is set by the system" }));
    if (issues.length > 0) {
      throw new ValidationError(
        `Invalid GoalSpec: ${issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}`,
        issues,
      );
    }
  }
  return parseGoalSpec(body);
}

/** An Idempotency-Key was sent again with a different GoalSpec than the goal it created. */
export class IdempotencyKeyReusedError extends GoalLoopsError {
  override readonly name = "IdempotencyKeyReusedError";
  readonly goalId: string;

  constructor(goalId: string) {
    super(`This Idempotency-Key already created goal '${goalId}' from a different GoalSpec`);
    this.goalId = goalId;
  }
}

/**
 * Throws IdempotencyKeyReusedError when `existing` (the goal a key already created) did not come from
 * the same spec as `retried`. Only a goal still at revision 1 can be compared: a human revision
 * changes the stored spec, and a late retry of the original request must still find its goal.
 */
export function assertSameSubmission(existing: GoalRecord, retried: GoalRecord): void {
  if (existing.revision !== 1) return;
  // Through JSON both ways: stored specs lose undefined fields, fresh ones may still carry them.
  if (!isDeepStrictEqual(plainJson(existing.spec), plainJson(retried.spec))) {
    throw new IdempotencyKeyReusedError(existing.goalId);
  }
}

function plainJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/**
 * Refuses a goal whose thinking settings the model of some role would answer 400 to: the GoalSpec's
 * own (`models.thinking.<role>`), or the deployment's for a role the GoalSpec sends to another model.
 */
function assertThinkingTaken(spec: GoalSpec, tiers: ModelTiers): void {
  const goal = spec.models?.thinking;
  const issues = MODEL_ROLES.flatMap((role) => {
    const explicit = goal?.[role] !== undefined || tiers.thinking?.[role] !== undefined;
    const modelId = modelIdFor(spec, role, tiers);
    const problem = thinkingProblem(modelId, thinkingSettingFor(role, goal, tiers.thinking), explicit);
    if (!problem) return [];
    // A role the GoalSpec says nothing about fails on the deployment's setting: say where to change it.
    const why =
      goal?.[role] === undefined
        ? `${problem.message}; the setting is the deployment's (goal-loops.config.json): set models.thinking.${role} in the GoalSpec`
        : problem.message;
    return [{ path: `models.thinking.${role}.${problem.field}`, message: why }];
  });
  if (issues.length > 0) {
    throw new ValidationError(
      `Invalid GoalSpec: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`,
      issues,
    );
  }
}

/** Refuses a GoalSpec granting a tool the deployment does not have, naming each by `tools.<index>`. */
function assertToolsKnown(spec: Pick<GoalSpec, "tools">, known: readonly string[], mcp?: McpCatalog): void {
  const servers = mcp?.servers.map((server) => `${server}__*`) ?? [];
  const issues = (spec.tools ?? []).flatMap((name, index) =>
    known.includes(name) || isMcpGrant(name, mcp)
      ? []
      : [
          {
            path: `tools.${index}`,
            message: `'${name}' is not a tool of this deployment; tools: ${[...known, ...servers].join(", ")}`,
          },
        ],
  );
  if (issues.length > 0) {
    throw new ValidationError(
      `Invalid GoalSpec: ${issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}`,
      issues,
    );
  }
}
