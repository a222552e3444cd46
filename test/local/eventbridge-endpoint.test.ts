import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EventBridgeEndpoint,
  startEventBridgeEndpoint,
} from "../../lib/local/eventbridge/eventbridge-endpoint";
import type { EventRuleSpec, JsonValue } from "../../lib/local/shared/cloud-assembly-model";
import { LOCAL_CREDENTIALS } from "./support";

const FUNCTION_ARN = "arn:aws:lambda:us-east-1:000000000000:function:Resume";
const MACHINE_ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:Flow";

const rules: EventRuleSpec[] = [
  {
    stackName: "S",
    logicalId: "Approvals",
    name: "Approvals",
    eventBusName: "bus",
    eventPattern: { source: ["app"], "detail-type": ["approval.decided"] },
    enabled: true,
    targets: [
      {
        id: "Resume",
        arn: FUNCTION_ARN,
        kind: "lambda",
        inputTransformer: {
          inputPathsMap: { id: "$.detail.approvalId", decision: "$.detail.decision" },
          inputTemplate: '{"approvalId":<id>,"text":"decided <decision>","rule":<aws.events.rule-name>}',
        },
      },
      { id: "Flow", arn: MACHINE_ARN, kind: "state-machine", inputPath: "$.detail" },
    ],
  },
  {
    stackName: "S",
    logicalId: "Disabled",
    name: "Disabled",
    eventBusName: "bus",
    eventPattern: { source: ["app"] },
    enabled: false,
    targets: [{ id: "Never", arn: FUNCTION_ARN, kind: "lambda" }],
  },
  {
    stackName: "S",
    logicalId: "Broken",
    name: "Broken",
    eventBusName: "bus",
    eventPattern: { source: ["broken"] },
    enabled: true,
    targets: [{ id: "Failing", arn: FUNCTION_ARN, kind: "lambda" }],
  },
];

describe("the local EventBridge endpoint", () => {
  let endpoint: EventBridgeEndpoint;
  let client: EventBridgeClient;
  const invoked: { arn: string; event: JsonValue }[] = [];
  const started: { arn: string; input: JsonValue }[] = [];

  beforeAll(async () => {
    endpoint = await startEventBridgeEndpoint({
      eventBuses: [
        { logicalId: "Bus", name: "bus", arn: "arn:aws:events:us-east-1:000000000000:event-bus/bus" },
      ],
      rules,
      invokeFunction: async (arn, event) => {
        if (JSON.stringify(event).includes("broken")) throw new Error("the function failed");
        invoked.push({ arn, event });
      },
      startExecution: (arn, input) => started.push({ arn, input }),
    });
    client = new EventBridgeClient({
      endpoint: endpoint.url,
      region: "us-east-1",
      credentials: LOCAL_CREDENTIALS,
    });
  });
  afterAll(async () => {
    client.destroy();
    await endpoint.close();
  });

  it("delivers a matching event to the rule's Lambda and state machine targets, transformed as configured", async () => {
    // Act
    const answer = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: "bus",
            Source: "app",
            DetailType: "approval.decided",
            Detail: JSON.stringify({ approvalId: "a-1", decision: "approve" }),
          },
        ],
      }),
    );
    await endpoint.idle();

    // Assess
    expect(answer.FailedEntryCount).toBe(0);
    const eventId = answer.Entries?.[0]?.EventId;
    expect(invoked).toContainEqual({
      arn: FUNCTION_ARN,
      event: { approvalId: "a-1", text: "decided approve", rule: "Approvals" },
    });
    expect(started).toContainEqual({ arn: MACHINE_ARN, input: { approvalId: "a-1", decision: "approve" } });
    expect(
      endpoint
        .deliveries()
        .filter((d) => d.eventId === eventId)
        .map((d) => [d.targetId, d.status]),
    ).toEqual([
      ["Resume", "delivered"],
      ["Flow", "delivered"],
    ]);
  });

  it("records a delivery whose target failed, with the error", async () => {
    // Act
    const answer = await client.send(
      new PutEventsCommand({
        Entries: [{ EventBusName: "bus", Source: "broken", DetailType: "x", Detail: "{}" }],
      }),
    );
    await endpoint.idle();

    // Assess
    const delivery = endpoint.deliveries().find((d) => d.eventId === answer.Entries?.[0]?.EventId);
    expect(delivery).toMatchObject({
      ruleName: "Broken",
      status: "failed",
      error: "Error: the function failed",
    });
  });

  it("answers bad entries one by one and counts them as failed", async () => {
    // Act
    const answer = await client.send(
      new PutEventsCommand({
        Entries: [
          { EventBusName: "bus", Source: "app", DetailType: "x", Detail: "not json" },
          { EventBusName: "nope", Source: "app", DetailType: "x", Detail: "{}" },
          {
            EventBusName: "arn:aws:events:us-east-1:000000000000:event-bus/bus",
            Source: "app",
            DetailType: "x",
            Detail: "{}",
          },
        ],
      }),
    );

    // Assess
    expect(answer.FailedEntryCount).toBe(2);
    expect(answer.Entries?.map((e) => e.ErrorCode ?? "ok")).toEqual([
      "MalformedDetail",
      "ResourceNotFoundException",
      "ok",
    ]);
  });
});
