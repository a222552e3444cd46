import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalEvent } from "../../lambdas/core/goal/goal-event";
import { SseParser } from "../../lambdas/core/goal/goal-event-stream";
import { allEvents, type E2eStack, PROJECT_DIR } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

function exampleGoal(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PROJECT_DIR, "examples", "goals", `${name}.json`), "utf8"));
}

describe("live events on the local stack: the event stream (SSE) and the long poll", () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await sharedE2eStack();
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("streams a goal's events as they are committed, ends once it is final, and resumes from Last-Event-ID", async () => {
    // Prepare
    const { goalId } = await e2e.client.submitGoal(exampleGoal("write-release-summary"));

    // Act: the raw stream, as curl -N would read it.
    const response = await fetch(`${e2e.stack.apiUrl}/goals/${goalId}/stream`);
    const frames = [];
    const parser = new SseParser();
    const decoder = new TextDecoder();
    for await (const chunk of response.body ?? []) frames.push(...parser.push(decoder.decode(chunk)));
    const resumed = [];
    for await (const event of e2e.client.watch(goalId, { after: 5 })) resumed.push(event);
    const afterFinal = await fetch(`${e2e.stack.apiUrl}/goals/${goalId}/stream`, {
      headers: { "last-event-id": String(frames.length) },
    });

    // Assess: one frame per event, id = seq, event = type, data = the event; the stream ended by itself.
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const logged = await allEvents(e2e.client, goalId);
    expect(frames.map((frame) => [frame.id, frame.event])).toEqual(
      logged.map((event) => [String(event.seq), event.type]),
    );
    expect(frames.map((frame) => JSON.parse(frame.data) as GoalEvent)).toEqual(logged);
    expect(frames.at(-1)?.event).toBe("goal.completed");
    expect(resumed.map((event) => event.seq)).toEqual(logged.slice(5).map((event) => event.seq));
    // A final goal with nothing new: 204 tells an EventSource to stop reconnecting.
    expect(afterFinal.status).toBe(204);
  });

  it("answers 404 in the API's error shape for an unknown goal, and 400 for a malformed goal id or a Last-Event-ID that is no seq", async () => {
    // Act
    const unknown = await fetch(`${e2e.stack.apiUrl}/goals/g-0000000000000000000000000a/stream`);
    const malformed = await fetch(`${e2e.stack.apiUrl}/goals/g-unknown/stream`);
    const { goalId } = await e2e.client.submitGoal(exampleGoal("write-release-summary"));
    const badId = await fetch(`${e2e.stack.apiUrl}/goals/${goalId}/stream`, {
      headers: { "last-event-id": "seven" },
    });

    // Assess
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "GoalNotFound" } });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: "ValidationError" } });
    expect(badId.status).toBe(400);
    expect(await badId.json()).toMatchObject({ error: { code: "ValidationError" } });
  });

  it("answers a long poll with the next event once it exists, and empty at waitSeconds for a quiet goal", async () => {
    // Prepare: a goal that waits for an approval, so its log stops growing.
    const { goalId } = await e2e.client.submitGoal({
      ...exampleGoal("write-release-summary"),
      approval: { requireFor: ["workspace_write"] },
    });
    const seen: GoalEvent[] = [];
    for await (const event of e2e.client.watch(goalId)) {
      seen.push(event);
      if (event.type === "approval.requested") break;
    }
    const last = seen.at(-1)?.seq ?? 0;

    // Act: a long poll past the last event waits; deciding the approval makes the next event.
    const quiet = await e2e.client.waitForEvents(goalId, last, 1);
    const polled = e2e.client.waitForEvents(goalId, last, 20);
    const [approval] = (await e2e.client.listApprovals("pending")).filter((item) => item.goalId === goalId);
    await e2e.client.decideApproval(approval?.approvalId ?? "", "approve");
    const answered = await polled;

    // Assess
    expect(quiet).toEqual({ items: [], nextSeq: last });
    expect(answered.items[0]?.seq).toBe(last + 1);
  });
});
