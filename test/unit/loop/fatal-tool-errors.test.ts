import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApprovalFromDoor } from "../../../lambdas/core/human/decide-approval";
import type { HumanInputEvent } from "../../../lambdas/core/human/human-input-events";
import { handleApprovalDecided } from "../../../lambdas/core/human/resume-handler";
import { requestApproval } from "../../../lambdas/core/loop/gates/request-approval";
import type { StepResult } from "../../../lambdas/core/loop/step-result";
import type { TaskCallback } from "../../../lambdas/core/ports/task-callback";
import {
  calls,
  createGoal,
  type GoalTable,
  ReactLoopDriver,
  reactSpec,
  ScriptedModel,
  startGoalTable,
  writes,
} from "./support";

class RecordingCallback implements TaskCallback {
  readonly answers: StepResult[] = [];
  async succeed(_token: string, output: StepResult): Promise<void> {
    this.answers.push(output);
  }
}

const API = "https://api.example.com/tickets/42";

/** An HTTP server stand-in that answers every request 403, and counts them. */
function forbidding() {
  const requests: string[] = [];
  const fetch = (async (url: string | URL | Request) => {
    requests.push(String(url));
    return new Response('{"message":"AccessDenied: no access to ticket 42"}', { status: 403 });
  }) as typeof globalThis.fetch;
  return { requests, fetch };
}

describe("a tool call that fails in a way no retry fixes (react)", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });
  afterAll(() => table.stop());

  async function forbiddenAfterOneCall() {
    const goal = await createGoal(table, reactSpec({ tools: ["http_request", "workspace_write"] }));
    const model = new ScriptedModel({
      reason: [calls("http_request", { method: "GET", url: API }), writes("out/haiku.md", "autumn")],
    });
    const server = forbidding();
    const loop = new ReactLoopDriver(table, model, undefined, {
      allowedHosts: ["api.example.com"],
      fetch: server.fetch,
    });
    const answers = await loop.run(goal.goalId);
    const callback = new RecordingCallback();
    const last = answers.at(-1);
    if (last?.next !== "decision") throw new Error(`expected a decision, got ${last?.next}`);
    const asked = await requestApproval(
      {
        goals: table.adapters.goals,
        outbox: table.adapters.outbox,
        callback,
        now: loop.now,
        newApprovalId: () => `ap-${goal.goalId}`,
      },
      { approvalTimeoutSeconds: 3600 },
      { ...last, next: "decision", taskToken: `token-${goal.goalId}` },
    );
    return { goal, loop, model, server, answers, asked, callback };
  }

  async function decide(
    loop: ReactLoopDriver,
    callback: RecordingCallback,
    approvalId: string,
    decision: "approve" | "reject",
  ) {
    const published: HumanInputEvent[] = [];
    await decideApprovalFromDoor(
      {
        goals: table.adapters.goals,
        publisher: { publish: async (event) => void published.push(event) },
        now: loop.now,
      },
      { approvalId, decision, decidedBy: "ana", channel: "api" },
    );
    const event = published[0];
    if (event?.detailType !== "Approval Decided") throw new Error("no decision published");
    await handleApprovalDecided({ goals: table.adapters.goals, callback, now: loop.now }, event.detail);
    const wake = callback.answers.at(-1);
    if (!wake) throw new Error("the decision was not delivered");
    return wake;
  }

  it("asks a human after the one call, before the model makes another", async () => {
    // Act
    const { goal, loop, model, server, answers, asked } = await forbiddenAfterOneCall();

    // Assess
    expect(answers.map((answer) => answer.next)).toEqual(["verify", "verify", "decision"]);
    expect(server.requests).toEqual([API]);
    expect(model.requests).toHaveLength(1);
    const record = await loop.goal(goal.goalId);
    expect(record).toMatchObject({
      status: "waiting",
      waitingFor: { kind: "decision" },
      toolDecision: { tool: "http_request", errorName: "HttpStatus403", outcome: "pending" },
    });
    expect(asked.outcome).toBe("requested");
    const approval = await table.adapters.goals.getApproval(`ap-${goal.goalId}`);
    expect(approval?.action).toMatchObject({
      kind: "decision",
      summary: expect.stringContaining("http_request failed in step-1 and cannot be retried (HttpStatus403"),
    });
    expect(approval?.action.summary).toContain("approve to go on without it");
    expect((await loop.eventsOf(goal.goalId, "decision.needed")).length).toBe(1);
  });

  it("goes on without the call when a human approves, and the model sees the error", async () => {
    // Prepare
    const { goal, loop, model, server, callback } = await forbiddenAfterOneCall();

    // Act
    const wake = await decide(loop, callback, `ap-${goal.goalId}`, "approve");
    const answers = await loop.continue(wake);

    // Assess
    expect(wake.next).toBe("verify");
    expect(answers.at(-1)?.next).toBe("completed");
    expect(server.requests).toEqual([API]);
    expect(model.requests).toHaveLength(2);
    const second = JSON.stringify(model.requests[1]?.messages);
    expect(second).toContain("AccessDenied: no access to ticket 42");
    expect((await loop.goal(goal.goalId)).toolDecision).toMatchObject({
      outcome: "approved",
      decidedBy: "ana",
    });
  });

  it("terminates the goal when a human rejects, naming the failed call", async () => {
    // Prepare
    const { goal, loop, callback } = await forbiddenAfterOneCall();

    // Act
    const wake = await decide(loop, callback, `ap-${goal.goalId}`, "reject");

    // Assess
    expect(wake.next).toBe("terminated");
    expect(await loop.goal(goal.goalId)).toMatchObject({
      status: "terminated",
      stopReason: {
        kind: "fatal_error",
        detail: "HttpStatus403",
        message: expect.stringContaining("http_request in step-1 failed unrecoverably"),
      },
    });
  });
});
