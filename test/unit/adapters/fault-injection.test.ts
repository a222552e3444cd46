import { randomUUID } from "node:crypto";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createGoalStoreAdapters } from "../../../lambdas/adapters/goal-store-adapters";
import {
  type Exit,
  FAULT_INJECTION_ENV,
  type FaultSpec,
  faultFromEnvironment,
  withCompensationFaultInjection,
  withFaultInjection,
  withNotifyFaultInjection,
  withReasoningFaultInjection,
} from "../../../lambdas/adapters/shared/fault-injection";
import { ValidationError } from "../../../lambdas/core/goal/errors";
import { checkpointedCall } from "../../../lambdas/core/models/model-call";
import type { ModelRole } from "../../../lambdas/core/models/model-roles";
import type { GoalStore, ModelCheckpoint } from "../../../lambdas/core/ports/goal-store";
import type { ModelClient, ModelRequest } from "../../../lambdas/core/ports/model-client";
import { createGoalTable } from "../../../lib/local/storage/create-goal-table";
import {
  type DynamoBackend,
  documentClientFor,
  dynamoClientFor,
  startDynalite,
} from "../../support/dynamo-backends";
import {
  createGoal,
  type GoalTable,
  MODEL_ID,
  ScriptedModel,
  says,
  startGoalTable,
  T0,
} from "../loop/support";
import { InMemoryOutbox, InMemoryWorkspace } from "../tools/support";

/** Stands for the end of the process: nothing after `exit` runs in the crashed attempt. */
class ProcessExited extends Error {
  constructor(readonly code: number) {
    super(`process exited with ${code}`);
  }
}

function recordingExit() {
  const codes: number[] = [];
  const exit = (code: number): never => {
    codes.push(code);
    throw new ProcessExited(code);
  };
  return { codes, exit };
}

const request = (role: ModelRole) => (): ModelRequest => ({
  modelId: MODEL_ID,
  role,
  goalId: "unused",
  call: 0,
  system: [],
  messages: [{ role: "user", content: [{ text: "go" }] }],
  tools: [],
  maxTokens: 100,
});

describe("faultFromEnvironment", () => {
  it("injects nothing when the variable is unset or blank", () => {
    // Act & Assess
    expect(faultFromEnvironment({})).toBeUndefined();
    expect(faultFromEnvironment({ [FAULT_INJECTION_ENV]: "  " })).toBeUndefined();
  });

  it("reads crash-after-checkpoint:<role>:<call>", () => {
    // Act
    const fault = faultFromEnvironment({ [FAULT_INJECTION_ENV]: "crash-after-checkpoint:plan:2" });

    // Assess
    expect(fault).toEqual({ kind: "crash-after-checkpoint", role: "plan", call: 2 });
  });

  it.each([
    "crash-before-checkpoint:reason:0",
    "crash-after-checkpoint:thinking:0",
    "crash-after-checkpoint:reason:-1",
    "crash-after-checkpoint:reason:one",
    "crash-after-checkpoint:reason",
    "crash-after-checkpoint:reason:0:extra",
  ])("fails loudly on '%s', naming the variable", (value) => {
    // Act
    const read = () => faultFromEnvironment({ [FAULT_INJECTION_ENV]: value });

    // Assess
    expect(read).toThrow(ValidationError);
    expect(read).toThrow(FAULT_INJECTION_ENV);
  });
});

describe("withFaultInjection around the DynamoDB goal store", () => {
  let table: GoalTable;

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    await table?.stop();
  });

  async function setup(fault: FaultSpec) {
    const { goalId, runId } = await createGoal(table);
    const model = new ScriptedModel({ reason: [says("one"), says("two")], judge: [says("yes")] });
    const { codes, exit } = recordingExit();
    // A fresh wrapper per attempt, as a retried step gets a fresh sandbox.
    const attempt = () => ({
      goals: withFaultInjection(table.adapters.goals, fault, exit),
      model,
      now: () => T0,
    });
    return { goalId, runId, model, codes, attempt };
  }

  it("crashes right after the targeted checkpoint is stored; the retry reuses it and pays nothing", async () => {
    // Prepare
    const { goalId, runId, model, codes, attempt } = await setup({
      kind: "crash-after-checkpoint",
      role: "reason",
      call: 0,
    });
    const key = { goalId, runId, iteration: 0, role: "reason" as const, ordinal: 0 };

    // Act
    const crashed = checkpointedCall(attempt(), key, request("reason"));
    await expect(crashed).rejects.toBeInstanceOf(ProcessExited);
    const retried = await checkpointedCall(attempt(), key, request("reason"));

    // Assess
    expect(codes).toEqual([1]);
    expect(model.requests).toHaveLength(1);
    expect(retried).toMatchObject({ call: 0, turn: { content: [{ text: "one" }] } });
    expect(await table.adapters.goals.getCheckpoint(key)).toEqual(retried);
  });

  it("lets every other role and call number through", async () => {
    // Prepare
    const { goalId, runId, model, codes, attempt } = await setup({
      kind: "crash-after-checkpoint",
      role: "reason",
      call: 1,
    });

    // Act
    await checkpointedCall(
      attempt(),
      { goalId, runId, iteration: 0, role: "reason", ordinal: 0 },
      request("reason"),
    );
    await checkpointedCall(
      attempt(),
      { goalId, runId, iteration: 0, role: "judge", ordinal: 0 },
      request("judge"),
    );
    const second = checkpointedCall(
      attempt(),
      { goalId, runId, iteration: 1, role: "reason", ordinal: 0 },
      request("reason"),
    );

    // Assess
    await expect(second).rejects.toBeInstanceOf(ProcessExited);
    expect(codes).toEqual([1]);
    expect(model.requests.map((sent) => sent.role)).toEqual(["reason", "judge", "reason"]);
  });

  it("does not crash a put that lost the race to an earlier attempt's checkpoint", async () => {
    // Prepare
    const { goalId, runId, codes, attempt } = await setup({
      kind: "crash-after-checkpoint",
      role: "reason",
      call: 0,
    });
    const first: ModelCheckpoint = {
      key: { goalId, runId, iteration: 0, role: "reason", ordinal: 0 },
      call: 0,
      turn: { ...says("first"), modelId: MODEL_ID },
      costUsd: 0,
      createdAt: T0.toISOString(),
    };
    await table.adapters.goals.putCheckpoint(first);

    // Act
    const stored = await attempt().goals.putCheckpoint({
      ...first,
      turn: { ...says("late"), modelId: MODEL_ID },
      createdAt: new Date(T0.getTime() + 1000).toISOString(),
    });

    // Assess
    expect(codes).toEqual([]);
    expect(stored.turn.content).toEqual([{ text: "first" }]);
  });

  it("passes every other operation through and leaves the store as it is without a fault", async () => {
    // Prepare
    const { goalId, runId, attempt } = await setup({ kind: "crash-after-checkpoint", role: "plan", call: 0 });
    const goals: GoalStore = attempt().goals;

    // Act
    const loaded = await goals.getGoal(goalId);

    // Assess
    expect(loaded?.record.goalId).toBe(goalId);
    expect(await goals.findCheckpoint({ goalId, runId, iteration: 0, role: "reason" })).toEqual({
      checkpoint: undefined,
      calls: 0,
    });
    expect(withFaultInjection(table.adapters.goals, undefined)).toBe(table.adapters.goals);
  });
});

describe("createGoalStoreAdapters with GOAL_LOOPS_FAULT_INJECTION", () => {
  let backend: DynamoBackend;
  let client: DynamoDBClient;
  const tableName = `goals-${randomUUID()}`;

  beforeAll(async () => {
    backend = await startDynalite();
    client = dynamoClientFor(backend.endpoint);
    await createGoalTable(client, tableName);
  });

  afterAll(async () => {
    client?.destroy();
    await backend?.stop();
  });

  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  /** The adapters as a handler creates them at module scope, reading the environment. */
  const handlerAdapters = (): GoalTable => ({
    adapters: createGoalStoreAdapters({ client: documentClientFor(client), tableName }),
    stop: async () => {},
  });

  it("fails at init, naming the variable, when its value does not parse", () => {
    // Prepare
    vi.stubEnv(FAULT_INJECTION_ENV, "crash-after-checkpoint:nobody:0");

    // Act & Assess
    expect(handlerAdapters).toThrow(FAULT_INJECTION_ENV);
  });

  it("wires the fault into the goal store every handler uses: the process exits with 1", async () => {
    // Prepare
    vi.stubEnv(FAULT_INJECTION_ENV, "crash-after-checkpoint:reason:0");
    const exit = vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new ProcessExited(Number(code));
    });
    const table = handlerAdapters();
    const { goalId, runId } = await createGoal(table);
    const model = new ScriptedModel({ reason: [says("one")] });

    // Act
    const call = checkpointedCall(
      { goals: table.adapters.goals, model, now: () => T0 },
      { goalId, runId, iteration: 0, role: "reason", ordinal: 0 },
      request("reason"),
    );

    // Assess
    await expect(call).rejects.toBeInstanceOf(ProcessExited);
    expect(exit).toHaveBeenCalledWith(1);
    const stored = await table.adapters.goals.findCheckpoint({ goalId, runId, iteration: 0, role: "reason" });
    expect(stored.checkpoint?.call).toBe(0);
  });
});

describe("withNotifyFaultInjection around the outbox", () => {
  const claim = {
    messageId: "notify-k",
    goalId: "g-1",
    tenantId: "local",
    channel: "ops",
    message: "hi",
    createdAt: "2026-01-01T00:00:00.000Z",
    delivery: { state: "sending", destination: "slack C0123ABCD", startedAt: "2026-01-01T00:00:00.000Z" },
  } as const;
  const sent = {
    state: "sent",
    destination: "slack C0123ABCD",
    startedAt: "2026-01-01T00:00:00.000Z",
    sentAt: "2026-01-01T00:00:01.000Z",
    receipt: "ts-1",
  } as const;

  function setup() {
    const outbox = new InMemoryOutbox();
    const exits: number[] = [];
    const exit = ((code: number) => {
      exits.push(code);
      throw new Error("exited");
    }) as Exit;
    const fault = faultFromEnvironment({ [FAULT_INJECTION_ENV]: "crash-after-notify-sent" });
    return { outbox, exits, faulty: withNotifyFaultInjection(outbox, fault, exit) };
  }

  it("reads crash-after-notify-sent", () => {
    expect(faultFromEnvironment({ [FAULT_INJECTION_ENV]: "crash-after-notify-sent" })).toEqual({
      kind: "crash-after-notify-sent",
    });
  });

  it("crashes once the send's receipt is stored, and not when a retry finds it stored", async () => {
    // Prepare
    const { outbox, exits, faulty } = setup();
    await faulty.putMessage(claim);

    // Act
    await expect(faulty.recordDelivery("g-1", "notify-k", sent)).rejects.toThrow("exited");
    const again = await faulty.recordDelivery("g-1", "notify-k", {
      ...sent,
      sentAt: "2026-01-01T00:00:09.000Z",
    });

    // Assess: the receipt was stored before the crash; the second outcome changed nothing
    expect(exits).toEqual([1]);
    expect(again.delivery).toEqual(sent);
    expect(outbox.messages.get("notify-k")?.delivery).toEqual(sent);
  });

  it("does not crash on a failed delivery, and leaves the outbox untouched under the other fault", async () => {
    // Prepare
    const { exits, faulty } = setup();
    await faulty.putMessage(claim);
    const plain = new InMemoryOutbox();

    // Act
    await faulty.recordDelivery("g-1", "notify-k", {
      state: "failed",
      destination: "slack C0123ABCD",
      startedAt: "2026-01-01T00:00:00.000Z",
      failedAt: "2026-01-01T00:00:01.000Z",
      error: { name: "NotifySendError", message: "no" },
    });

    // Assess
    expect(exits).toEqual([]);
    expect(withNotifyFaultInjection(plain, { kind: "crash-after-checkpoint", role: "reason", call: 0 })).toBe(
      plain,
    );
  });
});

describe("withReasoningFaultInjection (drop-reasoning)", () => {
  const reasoning = { reasoningContent: { reasoningText: { text: "List first.", signature: "sig" } } };
  const request: ModelRequest = {
    modelId: "scripted:x",
    goalId: "g-1",
    role: "reason",
    call: 1,
    system: [{ text: "Instructions." }],
    messages: [
      { role: "user", content: [{ text: "Go." }] },
      {
        role: "assistant",
        content: [reasoning, { toolUse: { toolUseId: "t-1", name: "workspace_list", input: {} } }],
      },
      { role: "assistant", content: [reasoning] },
      {
        role: "user",
        content: [{ toolResult: { toolUseId: "t-1", status: "success", content: [{ text: "[]" }] } }],
      },
    ],
  };
  const recording = () => {
    const sent: ModelRequest[] = [];
    const model: ModelClient = {
      converse: async (asked) => {
        sent.push(asked);
        return { modelId: asked.modelId, stopReason: "end_turn", content: [{ text: "ok" }], usage };
      },
    };
    return { sent, model };
  };
  const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };

  it("reads drop-reasoning", () => {
    expect(faultFromEnvironment({ [FAULT_INJECTION_ENV]: "drop-reasoning" })).toEqual({
      kind: "drop-reasoning",
    });
  });

  it("sends every request without its reasoning blocks, a turn left empty with a placeholder", async () => {
    // Prepare
    const { sent, model } = recording();
    const faulty = withReasoningFaultInjection(
      model,
      faultFromEnvironment({ [FAULT_INJECTION_ENV]: "drop-reasoning" }),
    );

    // Act
    await faulty.converse(request);

    // Assess
    expect(sent[0]?.messages.map((message) => message.content)).toEqual([
      [{ text: "Go." }],
      [{ toolUse: { toolUseId: "t-1", name: "workspace_list", input: {} } }],
      [{ text: "(no output)" }],
      request.messages[3]?.content,
    ]);
  });

  it("changes nothing under another fault or none", async () => {
    // Prepare
    const { sent, model } = recording();

    // Act
    await withReasoningFaultInjection(model, undefined).converse(request);
    await withReasoningFaultInjection(model, { kind: "crash-after-notify-sent" }).converse(request);

    // Assess
    expect(sent).toEqual([request, request]);
  });
});

describe("withCompensationFaultInjection", () => {
  const writer = (toolUseId: string) => ({ runId: "r1", iteration: 0, toolUseId });

  function setup() {
    const workspace = new InMemoryWorkspace();
    const exits: number[] = [];
    const exit = ((code: number) => {
      exits.push(code);
      throw new Error("exited");
    }) as Exit;
    const fault = faultFromEnvironment({ [FAULT_INJECTION_ENV]: "crash-after-compensation:1" });
    return { workspace, exits, faulty: withCompensationFaultInjection(workspace, fault, exit) };
  }

  it("reads crash-after-compensation:<index>", () => {
    expect(faultFromEnvironment({ [FAULT_INJECTION_ENV]: "crash-after-compensation:2" })).toEqual({
      kind: "crash-after-compensation",
      index: 2,
    });
  });

  it("crashes after the saga's undo number `index` changed the workspace, not after others, and not twice", async () => {
    // Prepare
    const { workspace, exits, faulty } = setup();
    await workspace.writeFile({ goalId: "g-1", path: "a.md", content: "made", writtenBy: writer("w1") });
    await workspace.writeFile({ goalId: "g-1", path: "b.md", content: "made", writtenBy: writer("w2") });

    // Act: undo 0 restores, undo 1 deletes (crash), its retry finds the file gone
    await faulty.writeFile({
      goalId: "g-1",
      path: "a.md",
      content: "old",
      writtenBy: writer("compensate:s:0"),
    });
    await expect(
      faulty.deleteFile({ goalId: "g-1", path: "b.md", writtenBy: writer("compensate:s:1") }),
    ).rejects.toThrow("exited");
    const retried = await faulty.deleteFile({
      goalId: "g-1",
      path: "b.md",
      writtenBy: writer("compensate:s:1"),
    });
    await faulty.writeFile({ goalId: "g-1", path: "c.md", content: "x", writtenBy: writer("tooluse-1") });

    // Assess
    expect(exits).toEqual([1]);
    expect(retried).toEqual({ deleted: false });
    expect(await workspace.readFile("g-1", "b.md")).toBeUndefined();
  });
});
