import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAULT_INJECTION_ENV } from "../../lambdas/adapters/shared/fault-injection";
import type { Execution } from "../../lib/local/step-functions/execution";
import { type E2eStack, followGoal, PROJECT_DIR, startE2eStack } from "./local-stack-harness";
import { fourIndependentStepsFixture, fourIndependentStepsGoal } from "./parallel-steps-fixture";

function exampleGoal(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "goals", `${name}.json`), "utf8"));
}

/** The execution of a goal's run (its input names the goal and the run), once it has ended. */
async function executionOf(e2e: E2eStack, goalId: string, runId: string): Promise<Execution> {
  const execution = e2e.stack.executions.list().find((candidate) => {
    const input = candidate.input;
    return (
      typeof input === "object" &&
      input !== null &&
      !Array.isArray(input) &&
      input.goalId === goalId &&
      input.runId === runId
    );
  });
  if (execution === undefined) throw new Error(`no execution for goal ${goalId} run ${runId}`);
  await execution.done;
  return execution;
}

/**
 * Plan-and-Execute on the release summary: one plan step, executed with one workspace_write. Inline
 * (no example goal yet), written to the fixtures folder as `scripted:fault-plan-execute`.
 */
const PLAN_EXECUTE_FIXTURE = {
  plan: [
    {
      toolUse: {
        name: "submit_plan",
        input: {
          steps: [
            {
              id: "write-summary",
              action: "Write the release summary for goal-loops 2.0 to summary.md",
              tool: "workspace_write",
              expected: "summary.md holds a short summary that names version 2.0",
              completion: { text: "summary.md is written" },
            },
          ],
        },
      },
      usage: { inputTokens: 900, outputTokens: 80 },
    },
  ],
  execute: [
    {
      toolUse: {
        name: "workspace_write",
        input: { path: "summary.md", content: "# goal-loops 2.0\n\nThree loop patterns, paid once.\n" },
      },
      usage: { inputTokens: 700, outputTokens: 40 },
    },
  ],
};

function planExecuteGoal(): Record<string, unknown> {
  return {
    ...exampleGoal("write-release-summary"),
    pattern: "plan_execute",
    models: { default: "scripted:fault-plan-execute" },
  };
}

/** One case per pattern: its goal and the role whose first call's checkpoint the crash follows. */
const CASES = [
  {
    pattern: "ReAct",
    goal: () => exampleGoal("write-release-summary"),
    role: "reason",
    state: "VerifyAndReason",
    modelCalls: 2,
  },
  { pattern: "Plan-and-Execute", goal: planExecuteGoal, role: "plan", state: "Plan", modelCalls: 2 },
  // Three attempts, three evaluations, two reflections.
  {
    pattern: "Reflexion",
    goal: () => exampleGoal("write-upgrade-notes"),
    role: "attempt",
    state: "Attempt",
    modelCalls: 8,
  },
] as const;

/**
 * A step Lambda crashes (process.exit, as an out-of-memory kill would) right after its model call
 * was checkpointed: the state machine retries the step on Runtime.ExitError, the retry finds the
 * checkpoint, and the local Bedrock endpoint shows the call was made, and paid, once.
 */
describe.each(CASES)(
  "fault injection: $pattern step crashes after its $role call was checkpointed",
  (spec) => {
    let e2e: E2eStack;

    beforeAll(async () => {
      e2e = await startE2eStack({
        environment: { [FAULT_INJECTION_ENV]: `crash-after-checkpoint:${spec.role}:0` },
      });
      e2e.writeFixture("fault-plan-execute", PLAN_EXECUTE_FIXTURE);
    });

    afterAll(async () => {
      await e2e?.stop();
    });

    it("the retried step completes the goal without calling the model again", async () => {
      // Act
      const accepted = await e2e.client.submitGoal(spec.goal());
      const { final } = await followGoal(e2e.client, accepted.goalId);
      const execution = await executionOf(e2e, accepted.goalId, accepted.runId);

      // Assess: the goal completed, and the crash really happened
      const { goalId } = accepted;
      expect(final.status).toBe("completed");
      expect(execution.status).toBe("SUCCEEDED");
      expect(e2e.logLines.some((line) => line.includes(`${FAULT_INJECTION_ENV}: crashing`))).toBe(true);

      // Assess: the crashed attempt and its retry are in the execution's history
      const crashed = execution.recentEvents.find(
        (event) => event.type === "StateFailed" && event.error === "Runtime.ExitError",
      );
      expect(crashed?.stateName).toBe(spec.state);
      const retried = execution.recentEvents.filter(
        (event) => event.type === "StateRetried" && event.stateName === crashed?.stateName,
      );
      expect(retried).toHaveLength(1);

      // Assess: the crashed call was paid once, and so was every other call
      expect(e2e.stack.bedrock.callCount({ goalId, role: spec.role, call: 0 })).toBe(1);
      const calls = e2e.stack.bedrock.calls().filter((call) => call.goalId === goalId);
      const distinct = new Set(calls.map((call) => `${call.role}#${call.call}`));
      expect(calls).toHaveLength(distinct.size);
      expect(final.usage.modelCalls).toBe(distinct.size);
      expect(distinct.size).toBe(spec.modelCalls);
    });
  },
);

/**
 * A branch of the ExecuteBatch Map crashes right after its step's execute call (call 2, the third
 * of four made at once) was checkpointed: Step Functions retries that branch alone, the retry finds
 * the checkpoint, and every execute call of the batch was made, paid and counted once.
 */
describe("fault injection: a Plan-and-Execute batch branch crashes after its execute call was checkpointed", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack({
      environment: { [FAULT_INJECTION_ENV]: "crash-after-checkpoint:execute:2" },
    });
    e2e.writeFixture("fault-parallel-four", fourIndependentStepsFixture(200));
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("retries the crashed branch, which reuses its checkpoint: each execute call is made once", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(fourIndependentStepsGoal("fault-parallel-four"));
    const { final } = await followGoal(e2e.client, accepted.goalId);
    const execution = await executionOf(e2e, accepted.goalId, accepted.runId);
    const { goalId } = accepted;

    // Assess: the goal completed, and the crash really happened inside the batch
    expect(final.status).toBe("completed");
    expect(execution.status).toBe("SUCCEEDED");
    expect(e2e.logLines.some((line) => line.includes(`${FAULT_INJECTION_ENV}: crashing`))).toBe(true);
    const crashed = execution.recentEvents.filter(
      (event) => event.type === "StateFailed" && event.error === "Runtime.ExitError",
    );
    expect(crashed.map((event) => event.stateName)).toEqual(["ExecuteBatchStep"]);

    // Assess: every execute call of the batch was made once, and the goal counted each once
    for (const call of [0, 1, 2, 3]) {
      expect(e2e.stack.bedrock.callCount({ goalId, role: "execute", call })).toBe(1);
    }
    const calls = e2e.stack.bedrock.calls().filter((call) => call.goalId === goalId);
    const distinct = new Set(calls.map((call) => `${call.role}#${call.call}`));
    expect(calls).toHaveLength(distinct.size);
    expect(final.usage.modelCalls).toBe(distinct.size);
    expect(final.usageByRole.execute?.modelCalls).toBe(4);
  });
});
