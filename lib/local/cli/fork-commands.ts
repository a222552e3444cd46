import { type Command, InvalidArgumentError, Option } from "commander";
import type { ForkRequest } from "../../../lambdas/core/fork/fork-request";
import type { ReplayResult } from "../../../lambdas/core/fork/replay";
import type { Timeline } from "../../../lambdas/core/fork/step-timeline";
import type { RevisionType } from "../../../lambdas/core/goal/goal-record";
import { REVISION_TYPES } from "../../../lambdas/core/goal/revision-types";
import { MODEL_ROLES } from "../../../lambdas/core/models/model-role-names";
import type { GoalLoopsClient } from "../../client/index";
import { type ApiTarget, apiOption, profileOption, regionOption, tokenOption } from "./api-target";

export interface ForkCommandsIo {
  readonly write: (line: string) => void;
  /** Runs one command against the target (the CLI's own: reachability, API errors, exit codes). */
  readonly control: (target: ApiTarget, act: (client: GoalLoopsClient) => Promise<void>) => Promise<void>;
  /** The `--port` option every control command takes. */
  readonly portOption: () => Option;
}

const MODEL_KEYS: readonly string[] = ["default", ...MODEL_ROLES];

/** `--model role=id`, repeatable: the fork's model per role. */
function collectModel(value: string, previous: Record<string, string>): Record<string, string> {
  const [role, ...rest] = value.split("=");
  const modelId = rest.join("=");
  if (role === undefined || !MODEL_KEYS.includes(role) || modelId === "") {
    throw new InvalidArgumentError(`'${value}' is not role=model-id; roles: ${MODEL_KEYS.join(", ")}`);
  }
  return { ...previous, [role]: modelId };
}

/** `--decide approvalId=approve|reject`, repeatable: an approval of the source decided otherwise. */
function collectDecision(
  value: string,
  previous: NonNullable<ForkRequest["decisions"]>,
): NonNullable<ForkRequest["decisions"]> {
  const [approvalId, decision] = value.split("=");
  if (approvalId === undefined || approvalId === "" || (decision !== "approve" && decision !== "reject")) {
    throw new InvalidArgumentError(`'${value}' is not <approvalId>=approve or <approvalId>=reject`);
  }
  return [...previous, { approvalId, decision }];
}

function parseStep(value: string): number {
  const step = Number(value);
  if (!Number.isInteger(step) || step < 1)
    throw new InvalidArgumentError(`'${value}' is not a step number (1, 2, …)`);
  return step;
}

function parseAmount(value: string): number {
  const amount = Number(value);
  if (value.trim() === "" || !Number.isFinite(amount))
    throw new InvalidArgumentError(`'${value}' is not a number`);
  return amount;
}

interface ForkOptions extends ApiTarget {
  readonly at: number;
  readonly revise?: string;
  readonly type: RevisionType;
  readonly model: Record<string, string>;
  readonly decide: NonNullable<ForkRequest["decisions"]>;
  readonly maxCostUsd?: number;
  readonly maxSteps?: number;
  readonly idempotencyKey?: string;
}

/** The request a `fork` command line asks for. */
export function forkRequestOf(options: Omit<ForkOptions, keyof ApiTarget>): ForkRequest {
  const limits = {
    ...(options.maxCostUsd === undefined ? {} : { maxCostUsd: options.maxCostUsd }),
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
  };
  return {
    atStep: options.at,
    ...(options.revise === undefined ? {} : { revision: { type: options.type, content: options.revise } }),
    ...(Object.keys(options.model).length === 0 ? {} : { models: options.model }),
    ...(Object.keys(limits).length === 0 ? {} : { limits }),
    ...(options.decide.length === 0 ? {} : { decisions: options.decide }),
  };
}

/** One line per step: what a human picks a fork point from. */
export function formatTimeline(timeline: Timeline): string[] {
  const lines = timeline.items.map((item) => {
    const calls = item.did.toolCalls.map(
      (call) => `${call.name}${call.status === "error" ? " (failed)" : ""}`,
    );
    const cost = item.cost === undefined ? "" : ` $${item.cost.usd.toFixed(4)}`;
    const mark = item.inherited ? " (inherited)" : "";
    const fork = item.forkable ? "" : `  [no fork: ${item.whyNotForkable ?? "unknown"}]`;
    return `  ${String(item.step).padStart(3)}  ${item.label}${mark}: ${calls.join(", ") || item.did.text || "no tool calls"}${cost}${fork}`;
  });
  const origin = timeline.forkedFrom
    ? [`forked from ${timeline.forkedFrom.goalId} after step ${timeline.forkedFrom.step}`]
    : [];
  const approvals = timeline.approvals.map(
    (approval) =>
      `  approval ${approval.approvalId} after step ${approval.afterStep}: ${approval.summary} (${approval.decision ?? "undecided"})`,
  );
  return [...origin, ...lines, ...approvals];
}

/** What a replay found, as lines; the first says whether the record and the checkpoints agree. */
export function formatReplay(result: ReplayResult): string[] {
  const head = result.agrees
    ? `Replayed steps 1-${result.toStep} of ${result.goalId}: the record and the checkpoints agree`
    : `Replayed ${result.goalId}: step ${result.firstDisagreement?.step} disagrees (${result.firstDisagreement?.field}): ${result.firstDisagreement?.message}`;
  return [head];
}

/**
 * `goal-loops steps <goalId>`, `fork <goalId> --at N [--revise …] [--model role=id] [--decide id=approve]`
 * and `replay <goalId> [--to N]`: a goal's timeline, a new goal from one of its steps, and a check of
 * its record against its checkpoints (exit 1 when they disagree).
 */
export function addForkCommands(program: Command, io: ForkCommandsIo): void {
  const target = (command: Command) =>
    command
      .addOption(io.portOption())
      .addOption(apiOption())
      .addOption(profileOption())
      .addOption(regionOption())
      .addOption(tokenOption());

  target(
    program
      .command("steps")
      .description(
        "List a goal's steps (what each did and cost, whether a fork can start after it) and its approvals",
      )
      .argument("<goalId>")
      .option("--json", "print the timeline as JSON", false),
  ).action(async (goalId: string, options: ApiTarget & { json: boolean }) => {
    await io.control(options, async (client) => {
      const timeline = await client.steps(goalId, { limit: 100 });
      if (options.json) io.write(JSON.stringify(timeline, null, 2));
      else for (const line of formatTimeline(timeline)) io.write(line);
    });
  });

  target(
    program
      .command("fork")
      .description(
        "Start a new goal where this one stood after step N (its contract, workspace, plan and lessons then); only the calls after N are made and billed",
      )
      .argument("<goalId>")
      .requiredOption("--at <n>", "the step to start after, as `goal-loops steps` numbers it", parseStep)
      .option("--revise <text>", "a revision applied on top of the contract as of step N")
      .addOption(
        new Option("--type <type>", "the revision's type").choices(REVISION_TYPES).default("add_constraint"),
      )
      .option("--model <role=id>", "the fork's model for a role (or default), repeatable", collectModel, {})
      .option(
        "--decide <approvalId=decision>",
        "decide an approval of the source asked after step N otherwise (approve or reject), repeatable",
        collectDecision,
        [],
      )
      .option("--max-cost-usd <usd>", "the fork's budget (its inherited cost counts toward it)", parseAmount)
      .option("--max-steps <n>", "the fork's step limit (its inherited steps count toward it)", parseAmount)
      .option("--idempotency-key <key>", "send the same key again to get the same fork, not a second one"),
  ).action(async (goalId: string, options: ForkOptions) => {
    await io.control(options, async (client) => {
      const fork = await client.fork(
        goalId,
        forkRequestOf(options),
        options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey },
      );
      io.write(
        `Forked ${goalId} after step ${options.at}: goal ${fork.goalId} (${fork.status}, run ${fork.runId})`,
      );
      io.write(`  follow it with: goal-loops watch ${fork.goalId}`);
    });
  });

  target(
    program
      .command("replay")
      .description(
        "Replay a goal's steps from its checkpoints alone (no model call, no tool) and name the first step where record and checkpoints disagree; exit 1 if one does",
      )
      .argument("<goalId>")
      .option("--to <n>", "the last step to replay (default: every counted step)", parseStep)
      .option("--json", "print the replay as JSON", false),
  ).action(async (goalId: string, options: ApiTarget & { to?: number; json: boolean }) => {
    let agrees = true;
    await io.control(options, async (client) => {
      const result = await client.replay(goalId, options.to);
      if (options.json) io.write(JSON.stringify(result, null, 2));
      else for (const line of formatReplay(result)) io.write(line);
      agrees = result.agrees;
    });
    // After `control`, which sets the exit code of a command the API answered.
    if (!agrees) process.exitCode = 1;
  });
}
