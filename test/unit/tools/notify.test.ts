import { describe, expect, it } from "vitest";
import type { ToolUseBlock } from "../../../lambdas/core/ports/model-client";
import {
  createBuiltInToolRunner,
  type NotifyChannels,
  type NotifySendRequest,
  notifyMessageId,
} from "../../../lambdas/tools";
import { callContext, InMemoryOutbox, InMemoryWorkspace, NOW } from "./support";

const CHANNELS: NotifyChannels = {
  ops: { type: "slack", channel: "C0123ABCD" },
  release: { type: "email", to: ["release@example.com"], subject: "Release" },
  hook: { type: "webhook", url: "https://hooks.example.com/goal-loops" },
  offlist: { type: "webhook", url: "https://elsewhere.example.org/in" },
};

/** A sender that records each request and answers with `answer` (or throws what it throws). */
function recordingSender(
  answer: (request: NotifySendRequest) => { receipt: string } = () => ({ receipt: "ts-1" }),
) {
  const sent: NotifySendRequest[] = [];
  const send = async (request: NotifySendRequest) => {
    sent.push(request);
    return answer(request);
  };
  return { sent, send };
}

function setup(
  options: {
    outbox?: InMemoryOutbox;
    send?: (request: NotifySendRequest) => Promise<{ receipt: string }>;
  } = {},
) {
  const outbox = options.outbox ?? new InMemoryOutbox();
  const sender = recordingSender();
  const runner = createBuiltInToolRunner({
    workspace: new InMemoryWorkspace(),
    outbox,
    allowedHosts: ["hooks.example.com"],
    now: () => NOW,
    notify: { mode: "send", channels: CHANNELS, send: options.send ?? sender.send },
  });
  const call = (channel: string, message = "release 2.1 is out"): ToolUseBlock => ({
    toolUseId: "tooluse_notify",
    name: "notify",
    input: { channel, message },
  });
  const context = callContext({ grantedTools: ["notify"], approvedCalls: ["tooluse_notify"] });
  return { outbox, runner, call, context, sent: sender.sent };
}

describe("notify (send mode): exactly once per idempotency key", () => {
  it("sends once to the channel's destination and records the provider's receipt", async () => {
    // Prepare
    const { runner, call, context, sent, outbox } = setup();

    // Act
    const outcome = await runner.run(call("ops"), context);

    // Assess
    expect(outcome.errorName).toBeUndefined();
    expect(sent).toEqual([
      {
        destination: CHANNELS.ops,
        channel: "ops",
        message: "release 2.1 is out",
        goalId: context.goalId,
        idempotencyKey: context.idempotencyKey,
      },
    ]);
    expect(outcome.result.content).toEqual([
      {
        json: {
          messageId: notifyMessageId(context.idempotencyKey),
          channel: "ops",
          destination: "slack C0123ABCD",
          receipt: "ts-1",
          sentAt: NOW.toISOString(),
        },
      },
    ]);
    expect(outbox.messages.get(notifyMessageId(context.idempotencyKey))?.delivery).toMatchObject({
      state: "sent",
      receipt: "ts-1",
    });
  });

  it("a retry after the outcome was recorded sends nothing and answers the first result", async () => {
    // Prepare: the first attempt sent and recorded; the step died before its checkpoint
    const { runner, call, context, sent } = setup();
    const first = await runner.run(call("ops"), context);

    // Act
    const retried = await runner.run(call("ops"), context);

    // Assess
    expect(sent).toHaveLength(1);
    expect(retried).toEqual(first);
  });

  it("a retry that finds only the claim (stopped between claim and record) never sends: NotifyDeliveryUncertain", async () => {
    // Prepare: an attempt claimed the call, maybe sent, and stopped before it recorded the outcome
    const outbox = new InMemoryOutbox();
    const { context } = setup();
    await outbox.putMessage({
      messageId: notifyMessageId(context.idempotencyKey),
      goalId: context.goalId,
      tenantId: context.tenantId,
      channel: "ops",
      message: "release 2.1 is out",
      createdAt: NOW.toISOString(),
      delivery: { state: "sending", destination: "slack C0123ABCD", startedAt: NOW.toISOString() },
    });
    const { runner, call, sent } = setup({ outbox });

    // Act
    const retried = await runner.run(call("ops"), context);

    // Assess
    expect(sent).toEqual([]);
    expect(retried.errorName).toBe("NotifyDeliveryUncertain");
    expect(JSON.stringify(retried.result.content)).toContain("channel 'ops'");
  });

  it("a store that fails after the send makes the step retry, and the retry does not send again", async () => {
    // Prepare: recording the outcome fails once (the table is unreachable)
    const outbox = new InMemoryOutbox();
    const recordDelivery = outbox.recordDelivery.bind(outbox);
    let failures = 1;
    outbox.recordDelivery = async (...args) => {
      if (failures-- > 0) throw new Error("store unavailable");
      return recordDelivery(...args);
    };
    const { runner, call, context, sent } = setup({ outbox });

    // Act
    await expect(runner.run(call("ops"), context)).rejects.toThrow("store unavailable");
    const retried = await runner.run(call("ops"), context);

    // Assess
    expect(sent).toHaveLength(1);
    expect(retried.errorName).toBe("NotifyDeliveryUncertain");
  });

  it("a provider failure is a tool error naming the channel, and a retry answers the same error without sending", async () => {
    // Prepare
    const sender = recordingSender(() => {
      throw Object.assign(new Error("Slack chat.postMessage to C0123ABCD: channel_not_found"), {
        name: "NotifySendError",
      });
    });
    const { runner, call, context } = setup({ send: sender.send });

    // Act
    const failed = await runner.run(call("ops"), context);
    const retried = await runner.run(call("ops"), context);

    // Assess
    expect(failed.errorName).toBe("NotifyDeliveryFailed");
    expect(failed.result.status).toBe("error");
    expect(JSON.stringify(failed.result.content)).toContain(
      "notify to channel 'ops' (slack C0123ABCD) failed: NotifySendError: Slack chat.postMessage to C0123ABCD: channel_not_found",
    );
    expect(retried).toEqual(failed);
    expect(sender.sent).toHaveLength(1);
  });

  it("each call (its own idempotency key) sends its own message", async () => {
    // Prepare
    const { runner, call, context, sent } = setup();

    // Act
    await runner.run(call("ops", "one"), context);
    await runner.run(call("ops", "two"), { ...context, idempotencyKey: "another-call" });

    // Assess
    expect(sent.map((request) => request.message)).toEqual(["one", "two"]);
  });
});

describe("notify (send mode): refusals before any approval", () => {
  it("an unknown channel is refused, naming it and the configured ones, without an approval", async () => {
    // Prepare
    const { runner, call, context, sent, outbox } = setup();

    // Act: no approval covers this call
    const outcome = await runner.run(call("marketing"), { ...context, approvedCalls: [] });

    // Assess
    expect(outcome.errorName).toBe("NotifyChannelUnknown");
    expect(JSON.stringify(outcome.result.content)).toContain(
      "There is no notify channel 'marketing'; configured: hook, offlist, ops, release",
    );
    expect(sent).toEqual([]);
    expect(outbox.messages.size).toBe(0);
  });

  it("an inherited object key is no channel", async () => {
    const { runner, call, context } = setup();
    expect((await runner.run(call("constructor"), context)).errorName).toBe("NotifyChannelUnknown");
  });

  it("a webhook whose host is not in http.allowedHosts is refused", async () => {
    // Prepare
    const { runner, call, context, sent } = setup();

    // Act
    const outcome = await runner.run(call("offlist"), context);

    // Assess
    expect(outcome.errorName).toBe("NotifyChannelRefused");
    expect(JSON.stringify(outcome.result.content)).toContain("host 'elsewhere.example.org'");
    expect(sent).toEqual([]);
  });
});

describe("notify (outbox mode, the local default)", () => {
  it("records any channel in the outbox and sends nothing", async () => {
    // Prepare
    const outbox = new InMemoryOutbox();
    const runner = createBuiltInToolRunner({
      workspace: new InMemoryWorkspace(),
      outbox,
      allowedHosts: [],
      now: () => NOW,
    });
    const context = callContext({ grantedTools: ["notify"], preAuthorized: ["notify"] });

    // Act
    const outcome = await runner.run(
      { toolUseId: "t1", name: "notify", input: { channel: "anyone", message: "hi" } },
      context,
    );

    // Assess
    expect(outcome.errorName).toBeUndefined();
    const messages = [...outbox.messages.values()];
    expect(messages).toEqual([expect.objectContaining({ channel: "anyone", message: "hi" })]);
    expect(messages[0]?.delivery).toBeUndefined();
  });
});
