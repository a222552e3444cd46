import { randomBytes } from "node:crypto";
import type { GoalRecord } from "../../../../lambdas/core/goal/goal-record";
import type { GoalSpecInput } from "../../../../lambdas/core/goal/goal-spec";
import type { PlanStepInput } from "../../../../lambdas/core/goal/plan";
import { queueRevision, type RevisionInput } from "../../../../lambdas/core/goal/revisions";
import { decideApprovalFromDoor } from "../../../../lambdas/core/human/decide-approval";
import type { HumanInputEvent } from "../../../../lambdas/core/human/human-input-events";
import { handleApprovalDecided } from "../../../../lambdas/core/human/resume-handler";
import { requestApproval } from "../../../../lambdas/core/loop/gates/request-approval";
import type { StepResult } from "../../../../lambdas/core/loop/step-result";
import { execute } from "../../../../lambdas/core/patterns/plan-execute/execute";
import { executeBatchStep } from "../../../../lambdas/core/patterns/plan-execute/execute-batch";
import { type ObserveResult, observe } from "../../../../lambdas/core/patterns/plan-execute/observe";
import { plan } from "../../../../lambdas/core/patterns/plan-execute/plan";
import type { PlanExecuteSettings } from "../../../../lambdas/core/patterns/plan-execute/plan-execute-deps";
import { SUBMIT_PLAN_TOOL } from "../../../../lambdas/core/patterns/plan-execute/plan-prompt";
import type { GoalStore } from "../../../../lambdas/core/ports/goal-store";
import type { ModelTurn } from "../../../../lambdas/core/ports/model-client";
import type { TaskCallback } from "../../../../lambdas/core/ports/task-callback";
import { DEFAULT_TOOL_NAMES } from "../../../../lambdas/tools/default-tools";
import { createPatternGoal, type GoalTable, LoopDriver, type ScriptedModel } from "../../loop/support";

/** Two models, so a test can tell which tier served a role (both priced by `scripted:*`). */
export const HEAVY_MODEL_ID = "scripted:plan-heavy";
export const FAST_MODEL_ID = "scripted:plan-fast";
export const API_HOST = "api.example.com";

export const PLAN_SETTINGS: PlanExecuteSettings = {
  models: { heavyModelId: HEAVY_MODEL_ID, fastModelId: FAST_MODEL_ID },
  continueAsNewAfter: 50,
  replanCooldownSeconds: 30,
  defaultTools: DEFAULT_TOOL_NAMES,
};

const USAGE = { inputTokens: 200, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 };
let toolUses = 0;

/** A plan step with sensible defaults: `id` writes nothing until you say what it does. */
export function step(id: string, overrides: Partial<PlanStepInput> = {}): PlanStepInput {
  return {
    id,
    action: `do ${id}`,
    expected: `${id} done`,
    completion: { text: `${id} is done` },
    ...overrides,
  };
}

/** The planner answers through `submit_plan` (structured output). */
export function submitsPlan(steps: readonly unknown[]): ModelTurn {
  toolUses += 1;
  return {
    modelId: HEAVY_MODEL_ID,
    stopReason: "tool_use",
    content: [
      {
        toolUse: { toolUseId: `plan-${toolUses}`, name: SUBMIT_PLAN_TOOL, input: { steps: steps as never } },
      },
    ],
    usage: USAGE,
  };
}

/** The executor (or planner) calls one tool with any JSON input. */
export function uses(name: string, input: Record<string, unknown>): ModelTurn {
  toolUses += 1;
  return {
    modelId: FAST_MODEL_ID,
    stopReason: "tool_use",
    content: [{ toolUse: { toolUseId: `exec-${toolUses}`, name, input: input as never } }],
    usage: USAGE,
  };
}

/** The model answers in text only (for the executor: new information). */
export function answers(text: string): ModelTurn {
  return { modelId: FAST_MODEL_ID, stopReason: "end_turn", content: [{ text }], usage: USAGE };
}

/** A spec whose one check is an artifact; override any field. */
export function planSpec(overrides: Partial<GoalSpecInput> = {}): GoalSpecInput {
  return {
    objective: "Publish the release notes for 2.0 to notes.md",
    pattern: "plan_execute",
    tools: ["workspace_write", "workspace_read", "workspace_list", "http_request", "notify"],
    successChecks: [
      {
        id: "notes",
        description: "notes.md names version 2.0",
        verify: { kind: "artifact", path: "notes.md", contains: "2.0" },
      },
    ],
    ...overrides,
  };
}

/** Stores a new running plan_execute goal at run `r1`, as the API does. */
export function createPlanGoal(table: GoalTable, spec: GoalSpecInput = planSpec()): Promise<GoalRecord> {
  return createPatternGoal(table, spec, "plan_execute");
}

/** Records SendTaskSuccess answers. */
export class RecordingCallback implements TaskCallback {
  readonly answers: { token: string; output: StepResult }[] = [];
  async succeed(token: string, output: StepResult): Promise<void> {
    this.answers.push({ token, output });
  }
}

/** A `fetch` for http_request that answers every GET with `status` (and counts the calls). */
export function fetchAnswering(status: number, body = "ok") {
  const calls: string[] = [];
  const fetch = (async (url: string | URL | Request) => {
    calls.push(String(url));
    return new Response(body, { status, headers: { "content-type": "text/plain" } });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

/** The Plan-and-Execute steps, and the human gates around them. */
export class PlanLoopDriver extends LoopDriver<PlanExecuteSettings> {
  private approvals = 0;

  constructor(
    table: GoalTable,
    model: ScriptedModel,
    settings: PlanExecuteSettings = PLAN_SETTINGS,
    fetch: typeof globalThis.fetch = fetchAnswering(200).fetch,
  ) {
    super(table, model, settings, { allowedHosts: [API_HOST], fetch });
  }

  observe(position: StepResult, goals?: GoalStore): Promise<ObserveResult> {
    return observe(this.ports(goals), this.settings, position);
  }

  plan(position: StepResult, goals?: GoalStore): Promise<StepResult> {
    return plan(this.ports(goals), this.settings, position);
  }

  execute(position: StepResult, goals?: GoalStore): Promise<StepResult> {
    return execute(this.ports(goals), this.settings, position);
  }

  /**
   * Whether ExecuteBatch's branches run at once, as the Map runs them. Off by default: the scripted
   * model serves turns in the order requests arrive, so branches in plan order keep a script's
   * turns on their steps.
   */
  concurrentBatch = false;

  /** ExecuteBatch: a branch per batch step, then Execute. */
  async executeBatch(position: ObserveResult, goals?: GoalStore): Promise<StepResult> {
    const { goalId, runId, iteration } = position;
    const branch = (stepId: string) =>
      executeBatchStep(this.ports(goals), this.settings, { goalId, runId, iteration, stepId });
    const stepIds = position.batch ?? [];
    if (this.concurrentBatch) await Promise.all(stepIds.map(branch));
    else for (const stepId of stepIds) await branch(stepId);
    return this.execute(position, goals);
  }

  /** NextAction's routes; ReplanCooldown's Wait is skipped. */
  step(position: StepResult, goals?: GoalStore): Promise<StepResult> | undefined {
    switch (position.next) {
      case "verify":
        return this.observe(position, goals);
      case "plan":
      case "replan_cooldown":
        return this.plan(position, goals);
      case "execute":
        return this.execute(position, goals);
      case "execute_batch":
        return this.executeBatch(position, goals);
      case "act":
        return this.act(position);
      default:
        return undefined;
    }
  }

  /** AwaitApproval's Lambda for a gate answer (`approval`, `limit_decision`, `decision`). */
  async requestApproval(position: StepResult) {
    if (position.next !== "approval" && position.next !== "limit_decision" && position.next !== "decision") {
      throw new Error(`expected a gate, got ${position.next}`);
    }
    const callback = new RecordingCallback();
    const requested = await requestApproval(
      {
        goals: this.table.adapters.goals,
        outbox: this.table.adapters.outbox,
        callback,
        now: this.now,
        newApprovalId: () => {
          this.approvals += 1;
          return `ap-${randomBytes(4).toString("hex")}-${this.approvals}`;
        },
      },
      { approvalTimeoutSeconds: 3600 },
      { ...position, next: position.next, taskToken: "task-token" },
    );
    return { requested, callback };
  }

  /** A human decides through a door; the resume handler wakes the run. Returns the run's next answer. */
  async decide(approvalId: string, decision: "approve" | "reject", comment?: string): Promise<StepResult> {
    const published: HumanInputEvent[] = [];
    await decideApprovalFromDoor(
      {
        goals: this.table.adapters.goals,
        publisher: { publish: async (e) => void published.push(e) },
        now: this.now,
      },
      {
        approvalId,
        decision,
        decidedBy: "ana",
        channel: "api",
        ...(comment === undefined ? {} : { comment }),
      },
    );
    const event = published[0];
    if (event?.detailType !== "Approval Decided") throw new Error("no decision was published");
    const callback = new RecordingCallback();
    await handleApprovalDecided({ goals: this.table.adapters.goals, callback, now: this.now }, event.detail);
    const output = callback.answers[0]?.output;
    if (!output) throw new Error("the resume handler did not answer the run");
    return output;
  }

  /** Queues a human revision the way the resume handler does. */
  async revise(goalId: string, input: Partial<RevisionInput> & Pick<RevisionInput, "type">, id = "rev-1") {
    const stored = await this.table.adapters.goals.getGoal(goalId);
    if (!stored) throw new Error("goal vanished");
    const change = queueRevision(
      stored.record,
      { content: "Also credit the contributors", requestedBy: "ana", ...input },
      { revisionId: id, now: this.now() },
    );
    await this.table.adapters.goals.commit(change.record, stored.version, change.events);
  }
}

/** The last answer of a run (the one it ended or waits on). */
export function lastOf(answers: readonly StepResult[]): StepResult {
  const last = answers.at(-1);
  if (!last) throw new Error("the run gave no answer");
  return last;
}

/** A plan of fetch then write, replanned to a direct write of `notes` once the executor answers it cannot fetch. */
export function replanScript(notes: string) {
  return {
    plan: [
      submitsPlan([
        step("fetch", { tool: "http_request" }),
        step("write", { tool: "workspace_write", dependsOn: ["fetch"] }),
      ]),
      submitsPlan([step("write-direct", { tool: "workspace_write" })]),
    ],
    execute: [
      answers("There is no changelog URL in the goal; write the notes from the objective instead."),
      uses("workspace_write", { path: "notes.md", content: notes }),
    ],
  };
}
