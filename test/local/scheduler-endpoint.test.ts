import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CreateScheduleCommand, GetScheduleCommand, SchedulerClient } from "@aws-sdk/client-scheduler";
import { afterEach, describe, expect, it } from "vitest";
import { schedulerDeadlines } from "../../lambdas/adapters/scheduler/scheduler-deadlines";
import { DEADLINE_REACHED, DEADLINE_SOURCE } from "../../lambdas/core/loop/gates/deadline";
import { type ScheduledEvent, startSchedulerEndpoint } from "../../lib/local/scheduler/scheduler-endpoint";
import { LOCAL_CREDENTIALS, waitFor } from "./support";

const SETTINGS = {
  groupName: "goal-deadlines",
  roleArn: "arn:aws:iam::000000000000:role/scheduler",
  eventBusArn: "arn:aws:events:us-east-1:000000000000:event-bus/goals",
};

describe("the local EventBridge Scheduler, driven by the deadline adapter through the real SDK client", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function started(stateFile?: string) {
    const fired: ScheduledEvent[] = [];
    const endpoint = await startSchedulerEndpoint({
      putEvent: async (event) => {
        fired.push(event);
      },
      log: () => undefined,
      ...(stateFile === undefined ? {} : { stateFile }),
    });
    cleanups.push(() => endpoint.close());
    const client = new SchedulerClient({
      endpoint: endpoint.url,
      region: "us-east-1",
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
    return { endpoint, client, fired, deadlines: schedulerDeadlines(client, SETTINGS) };
  }

  function stateDir(): string {
    const dir = mkdtempSync(path.join(tmpdir(), "scheduler-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  it("puts Deadline Reached on the goal bus at the deadline, then deletes the schedule", async () => {
    // Prepare
    const { deadlines, fired, endpoint } = await started();
    const deadline = new Date(Date.now() + 2_500).toISOString();

    // Act
    await deadlines.set("goal-1", deadline);

    // Assess
    expect([...endpoint.pending().keys()]).toEqual(["goal-deadlines/deadline-goal-1"]);
    await waitFor(() => fired.length > 0, "the deadline event", 10_000);
    expect(fired).toEqual([
      {
        EventBusName: SETTINGS.eventBusArn,
        Source: DEADLINE_SOURCE,
        DetailType: DEADLINE_REACHED,
        Detail: JSON.stringify({ goalId: "goal-1", deadline }),
      },
    ]);
    expect(endpoint.pending().size).toBe(0);
  });

  it("moves a goal's schedule when its deadline is set again (Create answers ConflictException)", async () => {
    // Prepare
    const { deadlines, client } = await started();
    const later = "2099-01-02T03:04:05.000Z";

    // Act
    await deadlines.set("goal-2", "2099-01-01T00:00:00.000Z");
    await deadlines.set("goal-2", later);

    // Assess
    const schedule = await client.send(
      new GetScheduleCommand({ Name: "deadline-goal-2", GroupName: SETTINGS.groupName }),
    );
    expect(schedule.ScheduleExpression).toBe("at(2099-01-02T03:04:05)");
    expect(schedule.ActionAfterCompletion).toBe("DELETE");
    expect(schedule.Target?.RoleArn).toBe(SETTINGS.roleArn);
  });

  it("keeps schedules across a restart, and fires at once one that fell due while it was down", async () => {
    // Prepare: a schedule set, the endpoint stopped before it fires
    const file = path.join(stateDir(), "schedules.json");
    const first = await started(file);
    await first.deadlines.set("goal-3", new Date(Date.now() + 1_500).toISOString());
    await first.endpoint.close();
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    // Act
    const second = await started(file);

    // Assess
    await waitFor(() => second.fired.length > 0, "the overdue deadline event", 10_000);
    expect(first.fired).toEqual([]);
    expect(JSON.parse(second.fired[0]?.Detail ?? "{}").goalId).toBe("goal-3");
  });

  it("answers the errors the SDK knows: a missing schedule, a recurring one, a damaged state file", async () => {
    // Prepare
    const { client } = await started();
    const damaged = path.join(stateDir(), "schedules.json");
    writeFileSync(damaged, "{ not json");

    // Act + Assess
    await expect(
      client.send(new GetScheduleCommand({ Name: "deadline-none", GroupName: SETTINGS.groupName })),
    ).rejects.toMatchObject({ name: "ResourceNotFoundException" });
    await expect(
      client.send(
        new CreateScheduleCommand({
          Name: "every-minute",
          ScheduleExpression: "rate(1 minute)",
          FlexibleTimeWindow: { Mode: "OFF" },
          Target: { Arn: SETTINGS.eventBusArn, RoleArn: SETTINGS.roleArn },
        }),
      ),
    ).rejects.toMatchObject({ name: "ValidationException", message: expect.stringContaining("at()") });
    await expect(started(damaged)).rejects.toMatchObject({ name: "LocalSchedulesError" });
  });
});
