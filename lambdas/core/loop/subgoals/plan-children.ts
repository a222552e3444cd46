import { createGoalRecord } from "../../goal/create-goal";
import { ValidationError } from "../../goal/errors";
import { type FrozenTool, isWholeServerGrant } from "../../goal/frozen-tools";
import type { GoalChange } from "../../goal/goal-change";
import type { GoalRecord } from "../../goal/goal-record";
import { type GoalSpec, GoalSpecSchema, type Limits, type Pattern } from "../../goal/goal-spec";
import type { VersionTarget } from "../../goal/runs-on";
import {
  childGoalId,
  runningSubgoals,
  type SubgoalEntry,
  type SubgoalRequest,
  SubgoalRequestSchema,
  startedSubgoals,
} from "../../goal/subgoals";
import { clip } from "../../goal/text";
import { parseOrThrow } from "../../goal/validation";
import { isModelAllowed } from "../../models/model-allow-list";
import { grantedTools } from "../loop-deps";
import type { SpawnCall } from "./spawn-calls";

/** The bounds and choices a deployment puts on sub-goals (configuration `subgoals`). */
export interface SubgoalSettings {
  /** Tools a goal may use when its GoalSpec names none. */
  readonly defaultTools: readonly string[];
  /** How deep sub-goals may nest below the goal a user posted (its children are at depth 1). */
  readonly maxDepth: number;
  /** How many sub-goals one goal may start over its life. */
  readonly maxChildren: number;
  /** The models a child's `models` may name; absent: not checked (IAM still refuses others). */
  readonly allowedModelIds?: readonly string[];
  /** The patterns this deployment runs (a state machine each). */
  readonly patterns: readonly Pattern[];
  /** Chooses the pattern of a child whose `pattern` is `auto` (the selector's rules). */
  readonly choosePattern: (spec: GoalSpec) => { readonly pattern: Pattern; readonly reason: string };
}

/** The first run of every child, as of every goal. */
export const CHILD_FIRST_RUN_ID = "r1";

/** A planned spawn call: its entry on the parent, and the child's first record when one starts. */
export interface PlannedSpawn {
  readonly spawn: SpawnCall;
  readonly entry: SubgoalEntry;
  readonly child?: GoalChange;
}

/** Why a spawn call starts no child: a tool error the model reads, with a stable name. */
class Refusal extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the parent has left for children not started yet: its limits minus use and reservations. */
interface Budget {
  costUsd: number;
  steps: number;
}

/** A millionth of a dollar: budgets are compared and carved at that precision (floored, never over). */
const round = (usd: number) => Math.floor(usd * 1e6) / 1e6;

/**
 * Plans the turn's spawn calls that have no entry yet, in the model's order: each becomes a child's
 * first record (its own contract; limits carved from what the parent has left, each later call
 * getting what the earlier ones left; tools a subset of the parent's; the parent's approval policy
 * and models unless it names allowed ones) or a refusal naming what was wrong (the input, the depth,
 * the number of children, a tool, a model, a limit). Pure: the same parent and calls plan the same
 * children, whose ids come from the calls.
 *
 * `stepRequest` replaces the calls' input when the turn executes a plan step that carries a
 * `subgoal`: the plan says what the child is, the executor's call only starts it.
 */
export function planChildren(
  parent: GoalRecord,
  spawns: readonly SpawnCall[],
  settings: SubgoalSettings,
  options: {
    readonly now: Date;
    readonly turn: { runId: string; iteration: number };
    stepRequest?: unknown;
    /** The version each pattern's child runs on (the parent's deploy): the child's record names it. */
    readonly targets?: Readonly<Partial<Record<Pattern, VersionTarget>>>;
  },
): PlannedSpawn[] {
  const { now, turn } = options;
  const budget = remainingBudget(parent);
  let started = startedSubgoals(parent).length;
  const planned: PlannedSpawn[] = [];
  spawns.forEach((spawn, index) => {
    const base = {
      callKey: spawn.callKey,
      toolUseId: spawn.call.toolUseId,
      runId: turn.runId,
      iteration: turn.iteration,
      startedAt: now.toISOString(),
    };
    try {
      const request = parseRequest(options.stepRequest ?? spawn.call.input);
      if ((parent.depth ?? 0) + 1 > settings.maxDepth) {
        throw new Refusal(
          "SubgoalDepthExceeded",
          `This goal is at depth ${parent.depth ?? 0}; sub-goals may nest ${settings.maxDepth} deep (subgoals.maxDepth). Do the work in this goal instead.`,
        );
      }
      if (started >= settings.maxChildren) {
        throw new Refusal(
          "TooManySubgoals",
          `This goal has started ${started} sub-goals, the most one goal may (subgoals.maxChildren ${settings.maxChildren}).`,
        );
      }
      const callsLeft = spawns.length - index;
      const limits = carveLimits(parent, request, budget, callsLeft);
      const spec = childSpec(parent, request, limits, settings);
      const choice = settings.choosePattern(spec);
      if (!settings.patterns.includes(choice.pattern)) {
        throw new Refusal(
          "PatternUnavailable",
          `pattern: ${choice.pattern} is not deployed here; deployed: ${settings.patterns.join(", ")}.`,
        );
      }
      const goalId = childGoalId(parent.goalId, spawn.callKey);
      const created = createGoalRecord({
        spec,
        goalId,
        tenantId: parent.tenantId,
        runId: CHILD_FIRST_RUN_ID,
        now,
        pattern: choice.pattern,
        patternReason: choice.reason,
        ...childFrozenTools(parent, spec),
        ...(options.targets?.[choice.pattern] === undefined
          ? {}
          : { target: options.targets[choice.pattern] }),
      });
      const depth = (parent.depth ?? 0) + 1;
      const child: GoalChange = {
        record: { ...created.record, depth },
        events: created.events.map((event) =>
          event.type === "goal.created" ? { ...event, parentGoalId: parent.goalId, depth } : event,
        ),
      };
      budget.costUsd = round(budget.costUsd - limits.maxCostUsd);
      budget.steps -= limits.maxSteps;
      started += 1;
      planned.push({
        spawn,
        entry: {
          ...base,
          status: "running",
          goalId,
          objective: clip(spec.objective, 300),
          pattern: choice.pattern,
          reserved: { maxCostUsd: limits.maxCostUsd, maxSteps: limits.maxSteps },
        },
        child,
      });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      planned.push({
        spawn,
        entry: {
          ...base,
          status: "refused",
          objective: clip(objectiveOf(spawn.call.input), 300),
          refusal: { name: error.name, message: clip(error.message, 2000) },
        },
      });
    }
  });
  return planned;
}

/** `$5.00`, `$0.35`, `$0.004125`: cents at least, as many digits as the amount has (up to six). */
function formatUsd(value: number): string {
  const digits = value.toFixed(6).replace(/0+$/, "");
  const [whole, fraction = ""] = digits.split(".");
  return `$${whole}.${fraction.padEnd(2, "0")}`;
}

function parseRequest(input: unknown): SubgoalRequest {
  try {
    return parseOrThrow(SubgoalRequestSchema, input, "spawn_subgoal input");
  } catch (error) {
    if (error instanceof ValidationError) throw new Refusal("InvalidToolInput", error.message);
    throw error;
  }
}

function objectiveOf(input: unknown): string {
  const objective =
    typeof input === "object" && input !== null && "objective" in input ? input.objective : undefined;
  return typeof objective === "string" && objective.trim() !== "" ? objective : "(no objective)";
}

/**
 * What the parent has left for new children: `maxCostUsd` minus what it spent (its children's ended
 * runs included) and what its running children may still spend; `maxSteps` minus its own steps,
 * the one making this call, and its running children's.
 */
export function remainingBudget(parent: GoalRecord): Budget {
  const running = runningSubgoals(parent);
  const reservedCost = running.reduce((sum, entry) => sum + (entry.reserved?.maxCostUsd ?? 0), 0);
  const reservedSteps = running.reduce((sum, entry) => sum + (entry.reserved?.maxSteps ?? 0), 0);
  const { maxCostUsd, maxSteps } = parent.spec.limits;
  return {
    costUsd: round(maxCostUsd - parent.usage.costUsd - reservedCost),
    steps: maxSteps - parent.steps - 1 - reservedSteps,
  };
}

/**
 * The child's limits: what it asks for, never more than the parent has left (a refusal names the
 * limit and the numbers); cost and steps it leaves out are a share of what is left (split evenly
 * among this turn's calls still to plan), its deadline the parent's.
 */
function carveLimits(parent: GoalRecord, request: SubgoalRequest, budget: Budget, callsLeft: number): Limits {
  const asked = request.limits ?? {};
  const spent = parent.usage.costUsd;
  const { maxCostUsd, maxSteps, deadline } = parent.spec.limits;
  const usd = formatUsd;
  if (budget.costUsd <= 0) {
    throw new Refusal(
      "SubgoalBudgetExceeded",
      `limits.maxCostUsd: the parent has nothing left for a sub-goal (maxCostUsd ${usd(maxCostUsd)}, spent ${usd(spent)}, the rest reserved by running sub-goals).`,
    );
  }
  if (asked.maxCostUsd !== undefined && asked.maxCostUsd > budget.costUsd) {
    throw new Refusal(
      "SubgoalBudgetExceeded",
      `limits.maxCostUsd: ${usd(asked.maxCostUsd)} asked, but the parent has ${usd(budget.costUsd)} left (maxCostUsd ${usd(maxCostUsd)}, spent ${usd(spent)}, the rest reserved by running sub-goals). Ask for at most ${usd(budget.costUsd)}.`,
    );
  }
  if (budget.steps < 1) {
    throw new Refusal(
      "SubgoalBudgetExceeded",
      `limits.maxSteps: the parent has no steps left for a sub-goal (maxSteps ${maxSteps}, ${parent.steps} used, the rest reserved by running sub-goals).`,
    );
  }
  if (asked.maxSteps !== undefined && asked.maxSteps > budget.steps) {
    throw new Refusal(
      "SubgoalBudgetExceeded",
      `limits.maxSteps: ${asked.maxSteps} asked, but the parent has ${budget.steps} steps left (maxSteps ${maxSteps}, ${parent.steps} used, the rest reserved by running sub-goals). Ask for at most ${budget.steps}.`,
    );
  }
  if (
    asked.deadline !== undefined &&
    deadline !== undefined &&
    Date.parse(asked.deadline) > Date.parse(deadline)
  ) {
    throw new Refusal(
      "SubgoalBudgetExceeded",
      `limits.deadline: ${asked.deadline} asked, but the parent's deadline is ${deadline}; a sub-goal ends no later than its parent.`,
    );
  }
  const share = (left: number) => left / Math.max(1, callsLeft);
  const costUsd = asked.maxCostUsd ?? round(share(budget.costUsd));
  if (costUsd <= 0) {
    throw new Refusal(
      "SubgoalBudgetExceeded",
      `limits.maxCostUsd: the parent's ${usd(budget.costUsd)} left cannot be shared among ${callsLeft} sub-goals.`,
    );
  }
  const { maxCostUsd: _cost, maxSteps: _steps, deadline: _deadline, ...rest } = asked;
  const childDeadline = asked.deadline ?? deadline;
  return {
    ...GoalSpecSchema.shape.limits.parse({}),
    ...rest,
    maxCostUsd: costUsd,
    maxSteps: asked.maxSteps ?? Math.max(1, Math.floor(share(budget.steps))),
    ...(childDeadline === undefined ? {} : { deadline: childDeadline }),
  };
}

/**
 * The child's contract: its own objective, checks and limits; tools a subset of the parent's
 * (default: the parent's grant), models from the allow-list (default: the parent's), and the
 * parent's approval policy and `onAbandon`.
 */
function childSpec(
  parent: GoalRecord,
  request: SubgoalRequest,
  limits: Limits,
  settings: SubgoalSettings,
): GoalSpec {
  const parentTools = grantedTools(parent, settings.defaultTools);
  const parentGrants = parent.spec.tools ?? settings.defaultTools;
  (request.tools ?? []).forEach((tool, index) => {
    const granted = isWholeServerGrant(tool) ? parentGrants.includes(tool) : parentTools.includes(tool);
    if (!granted) {
      throw new Refusal(
        "SubgoalToolNotGranted",
        `tools.${index}: '${tool}' is not a tool of this goal; a sub-goal gets a subset of this goal's tools: ${parentTools.join(", ")}.`,
      );
    }
  });
  // `thinking` is how a role thinks, not a model: the allow-list checks the role's model ids only.
  const { thinking: _thinking, ...roleModels } = request.models ?? {};
  for (const [role, modelId] of Object.entries(roleModels)) {
    const allowed = settings.allowedModelIds;
    if (modelId !== undefined && allowed !== undefined && !isModelAllowed(modelId, allowed)) {
      throw new Refusal(
        "ModelNotAllowed",
        `models.${role}: '${modelId}' is not an allowed model; allowed: ${allowed.join(", ")}.`,
      );
    }
  }
  const models = request.models ?? parent.spec.models;
  const tools = request.tools ?? parent.spec.tools;
  const onAbandon = parent.spec.onAbandon;
  const priority = request.priority ?? parent.spec.priority;
  try {
    return parseOrThrow(
      GoalSpecSchema,
      {
        objective: request.objective,
        successChecks: request.successChecks,
        ...(request.scope === undefined ? {} : { scope: request.scope }),
        ...(request.constraints === undefined ? {} : { constraints: request.constraints }),
        ...(request.hints === undefined ? {} : { hints: request.hints }),
        limits,
        pattern: request.pattern ?? "auto",
        ...(tools === undefined ? {} : { tools }),
        approval: parent.spec.approval,
        ...(models === undefined ? {} : { models }),
        parentGoalId: parent.goalId,
        ...(onAbandon === undefined ? {} : { onAbandon }),
        ...(priority === undefined ? {} : { priority }),
      },
      "sub-goal GoalSpec",
    );
  } catch (error) {
    if (error instanceof ValidationError) throw new Refusal("InvalidToolInput", error.message);
    throw error;
  }
}

/** The parent's frozen MCP tools the child is granted: no server is asked again. */
function childFrozenTools(parent: GoalRecord, spec: GoalSpec): { frozenTools?: FrozenTool[] } {
  const frozen = parent.frozenTools ?? [];
  if (frozen.length === 0) return {};
  const grants = spec.tools;
  const kept =
    grants === undefined
      ? frozen
      : frozen.filter((tool) => grants.includes(tool.name) || grants.includes(`${tool.server}__*`));
  return kept.length === 0 ? {} : { frozenTools: [...kept] };
}
