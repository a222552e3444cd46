import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { EventBridgePublisher } from "../../../lambdas/adapters/eventbridge/eventbridge-publisher";

const eventBridge = mockClient(EventBridgeClient);
const resume = {
  detailType: "Resume Requested",
  detail: { goalId: "g-1", requestedBy: "ana", channel: "cli", requestedAt: "2026-03-01T09:00:00.000Z" },
} as const;

describe("EventBridgePublisher", () => {
  beforeEach(() => eventBridge.reset());

  it("puts the event on the bus with the human-input source and detail type", async () => {
    // Prepare
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: "e-1" }] });

    // Act
    await new EventBridgePublisher(new EventBridgeClient({ region: "us-east-1" }), "goals-bus").publish(
      resume,
    );

    // Assess
    expect(eventBridge.commandCalls(PutEventsCommand)[0]?.args[0].input).toEqual({
      Entries: [
        {
          EventBusName: "goals-bus",
          Source: "goal-loops.human",
          DetailType: "Resume Requested",
          Detail: JSON.stringify(resume.detail),
        },
      ],
    });
  });

  it("throws a retryable HumanInputPublishError when the entry failed", async () => {
    // Prepare
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: "ThrottlingException", ErrorMessage: "slow down" }],
    });

    // Act
    const failure = await new EventBridgePublisher(
      new EventBridgeClient({ region: "us-east-1" }),
      "goals-bus",
    )
      .publish(resume)
      .catch((error: unknown) => error);

    // Assess
    expect(failure).toMatchObject({ name: "HumanInputPublishError", retryable: true });
    expect(String((failure as Error).message)).toContain("ThrottlingException");
  });
});
