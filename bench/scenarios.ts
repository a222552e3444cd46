import { setTimeout as delay } from "node:timers/promises";
import { PATTERNS, type Pattern } from "../lambdas/core/goal/goal-spec";
import { allEvents } from "../test/e2e/local-stack-harness";
import type { BenchStack } from "./bench-stack";
import { runsOf, settle } from "./bench-stack";
import { approvalGoalSpec, shortGoalSpec } from "./fixtures";

interface PatternTransitions {
  readonly pattern: Pattern;
  /** `missing`: no state machine for the pattern in cdk.out; `failed`: its scenario did not complete. */
  readonly status: "measured" | "missing" | "failed";
  readonly perIteration?: number;
  readonly iterations?: number;
  readonly lambdaInvocations?: number;
  readonly detail?: string;
}

const ITERATIONS = 4;

/** Scenario fixtures per pattern: ITERATIONS acting turns, each a new file, the last one completing the goal. */
function scenario(pattern: Pattern, fixtureName: string) {
  const files = Array.from({ length: ITERATIONS }, (_, index) => ({
    path: index === ITERATIONS - 1 ? "done.md" : `part-${index}.md`,
    content: index === ITERATIONS - 1 ? "done" : `part ${index}`,
  }));
  const write = (file: { path: string; content: string }) => ({
    toolUse: { name: "workspace_write", input: file },
  });
  const fixtures: Record<Pattern, unknown> = {
    // Drafts of done.md until the last turn: each a new version of the file the check names (progress).
    react: {
      reason: files.map((_file, index) =>
        write({ path: "done.md", content: index === ITERATIONS - 1 ? "done" : `draft ${index}` }),
      ),
    },
    plan_execute: {
      plan: [
        {
          toolUse: {
            name: "submit_plan",
            input: {
              steps: files.map((file, index) => ({
                id: `write-${index}`,
                action: `Write ${file.path}`,
                tool: "workspace_write",
                dependsOn: index === 0 ? [] : [`write-${index - 1}`],
                expected: `${file.path} exists`,
                completion: { text: `${file.path} is written` },
              })),
            },
          },
        },
      ],
      execute: files.map(write),
    },
    reflexion: {
      // Every attempt but the last writes done.md without the word the check wants: evaluate fails it.
      attempt: files.map((_, index) =>
        write({ path: "done.md", content: index === ITERATIONS - 1 ? "done" : `draft ${index}` }),
      ),
      reflect: files.map((_, index) => ({ text: `Lesson ${index}: done.md must say done.` })),
    },
  };
  const spec = {
    objective: "Write the parts, then done.md",
    successChecks: [
      {
        id: "done",
        description: "done.md says done",
        verify: { kind: "artifact", path: "done.md", contains: "done" },
      },
    ],
    limits: { maxSteps: 20, maxAttempts: ITERATIONS + 1, maxNoProgressCycles: 3 },
    pattern,
    models: { default: `scripted:${fixtureName}` },
  };
  return { fixture: fixtures[pattern], spec };
}

/**
 * State transitions per iteration of each pattern, from the local execution history of a small goal
 * (ITERATIONS acting steps, no gate). A pattern whose state machine is not in cdk.out is reported
 * missing; one whose scenario does not complete is reported failed, with the goal's stop reason.
 */
export async function measureTransitions(
  bench: BenchStack,
  writeFixture: (name: string, fixture: unknown) => void,
): Promise<PatternTransitions[]> {
  const machines = bench.stack.model.stateMachines.map((machine) => machine.name.toLowerCase());
  const results: PatternTransitions[] = [];
  for (const pattern of PATTERNS) {
    const suffix = pattern.replace("_", "");
    if (!machines.some((name) => name.replace(/[-_]/g, "").endsWith(suffix))) {
      results.push({ pattern, status: "missing", detail: "no state machine for it in cdk.out" });
      continue;
    }
    const name = `bench-pattern-${pattern}`;
    const { fixture, spec } = scenario(pattern, name);
    writeFixture(name, fixture);
    try {
      const accepted = await bench.client.submitGoal(spec);
      const final = await settle(bench.client, accepted.goalId, 60_000);
      const runs = runsOf(bench, accepted.goalId);
      await Promise.all(runs.map((run) => run.done));
      const transitions = runs.reduce((sum, run) => sum + run.transitions, 0);
      const machine = bench.stack.model.stateMachines.find((candidate) =>
        runs.some((run) => run.stateMachineArn === candidate.arn),
      );
      const states = (machine?.definition.States ?? {}) as Record<string, { Type?: string }>;
      const tasks = new Set(Object.keys(states).filter((state) => states[state]?.Type === "Task"));
      // Small goals: every event is still in the kept history.
      const taskStates = runs.reduce(
        (sum, run) =>
          sum +
          run.recentEvents.filter(
            (event) => event.type === "StateEntered" && tasks.has(event.stateName ?? ""),
          ).length,
        0,
      );
      if (final.status !== "completed") {
        const why = final.stopReason
          ? `${final.stopReason.detail}: ${final.stopReason.message}`
          : final.status;
        results.push({
          pattern,
          status: "failed",
          detail: `goal ended ${final.status} (${why})`.slice(0, 200),
        });
        continue;
      }
      results.push({
        pattern,
        status: "measured",
        iterations: final.steps,
        perIteration: transitions / Math.max(1, final.steps),
        lambdaInvocations: taskStates,
      });
    } catch (error) {
      results.push({ pattern, status: "failed", detail: String(error).slice(0, 200) });
    }
  }
  return results;
}

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
};
export const median = (values: readonly number[]) => percentile(values, 0.5);
export const p95 = (values: readonly number[]) => percentile(values, 0.95);

export interface ApprovalLatency {
  /** The first approval on the stack: its resume handler's and Act's sandboxes start cold. */
  readonly cold: number;
  /** The next `count`, one at a time on the warmed stack. */
  readonly warm: readonly number[];
  /** Of each warm one: decision received -> AwaitApproval's task answered (API, EventBridge, resume handler). */
  readonly toAnswered: readonly number[];
}

/**
 * Approval latency: from the decision's POST (the API received it) to the Act state's start in the
 * waiting run (its StateEntered in the local execution history), over `count` goals one at a time
 * after one that warms the sandboxes (its figure is kept apart: the resume handler's and Act's
 * first invocations start cold). While the decision travels the bench does not poll the API (each
 * poll is a goals-API invocation and a DynamoDB read on the machine being measured); it waits on
 * the execution, then reads the goal once.
 */
export async function measureApprovalLatency(bench: BenchStack, count: number): Promise<ApprovalLatency> {
  const latencies: number[] = [];
  const toAnswered: number[] = [];
  for (let index = 0; index <= count; index += 1) {
    const accepted = await bench.client.submitGoal(approvalGoalSpec());
    const waiting = await settle(bench.client, accepted.goalId, 30_000, 20);
    if (waiting.status !== "waiting" || !waiting.waitingFor)
      throw new Error(`approval goal ended ${waiting.status}`);
    const execution = runsOf(bench, accepted.goalId)[0];
    if (execution === undefined) throw new Error(`no execution for approval goal ${accepted.goalId}`);
    const decided = Date.now();
    await bench.client.decideApproval(waiting.waitingFor.approvalId, "approve");
    await Promise.race([
      execution.done,
      delay(30_000).then(() => {
        throw new Error(`approval goal ${accepted.goalId} still runs 30 s after its approval`);
      }),
    ]);
    const done = await settle(bench.client, accepted.goalId, 30_000, 20);
    if (done.status !== "completed") throw new Error(`approval goal ended ${done.status} after approval`);
    const act = execution.recentEvents.find(
      (event) => event.type === "StateEntered" && event.stateName === "Act" && event.timestamp >= decided,
    );
    if (!act) throw new Error("no Act state after the decision in the execution history");
    latencies.push(act.timestamp - decided);
    const answered = execution.recentEvents.find(
      (event) =>
        event.type === "StateExited" && event.stateName === "AwaitApproval" && event.timestamp >= decided,
    );
    if (index > 0) toAnswered.push((answered?.timestamp ?? Number.NaN) - decided);
  }
  const [cold = Number.NaN, ...warm] = latencies;
  return { cold, warm, toAnswered };
}

/** Goals completed per minute with `concurrency` short goals submitted at once. */
export async function measureThroughput(bench: BenchStack, concurrency: number) {
  const started = performance.now();
  const accepted = await Promise.all(
    Array.from({ length: concurrency }, () => bench.client.submitGoal(shortGoalSpec())),
  );
  const finals = await Promise.all(accepted.map((goal) => settle(bench.client, goal.goalId, 300_000, 250)));
  const minutes = (performance.now() - started) / 60_000;
  const completed = finals.filter((goal) => goal.status === "completed").length;
  return { completed, goalsPerMinute: completed / minutes, seconds: minutes * 60 };
}

/** Per-iteration wall times of a goal on the local runtime, from its reason calls' usage events. */
export async function iterationTimes(bench: BenchStack, goalId: string): Promise<number[]> {
  const stamps = (await allEvents(bench.client, goalId)).flatMap((event) => {
    const detail = event as { type: string; at: string; role?: string };
    return detail.type === "model.usage" && detail.role === "reason" ? [Date.parse(detail.at)] : [];
  });
  return stamps.slice(1).map((stamp, index) => stamp - (stamps[index] ?? stamp));
}
