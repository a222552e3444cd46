import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetItemCommand, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalStack, startLocalStack } from "../../lib/local/local-stack";
import { localDynamoClient } from "../../lib/local/storage/dynamo";
import { FIXTURE_PROJECT_DIR, synthFixtureApp } from "./fixtures/fixture-app";
import { collectingLog, fixturesFolder, LOCAL_CREDENTIALS, waitFor } from "./support";

describe("startLocalStack", () => {
  let cdkOutDir: string;
  let stack: LocalStack;
  let fixtures: ReturnType<typeof fixturesFolder>;
  const quiet = { log: () => {}, functionLog: collectingLog().log };

  beforeAll(async () => {
    cdkOutDir = synthFixtureApp();
    fixtures = fixturesFolder({ "demo.json": { reason: [{ text: "hello" }] } });
    stack = await startLocalStack({
      projectDir: FIXTURE_PROJECT_DIR,
      cdkOutDir,
      synth: false,
      port: 0,
      inMemory: true,
      fixturesDir: fixtures.dir,
      model: "scripted:demo",
      ...quiet,
    });
  });
  afterAll(async () => {
    await stack.stop();
    fixtures.cleanup();
  });

  const workerA = () => stack.model.functions.find((f) => f.logicalId.startsWith("WorkerA"))?.arn ?? "";
  const workerB = () => stack.model.functions.find((f) => f.logicalId.startsWith("WorkerB"))?.arn ?? "";

  it("creates the template's tables in the embedded DynamoDB", async () => {
    // Act
    const client = localDynamoClient(stack.endpoints.dynamodb);
    const { TableNames } = await client.send(new ListTablesCommand({}));
    client.destroy();

    // Assess
    expect(TableNames).toEqual(
      expect.arrayContaining(["plain-table", ...stack.model.tables.map((t) => t.tableName)]),
    );
    expect(stack.storage).toBe("in memory");
  });

  it("replaces HEAVY_MODEL_ID with --model in the functions that have one, and adds it to none", async () => {
    // Act
    const seen = await stack.lambdas.invoke(workerA(), { action: "env" });
    const other = await stack.lambdas.invoke(workerB(), { action: "env" });

    // Assess
    expect(seen).toMatchObject({ modelId: "scripted:demo", sfnEndpoint: stack.endpoints.sfn });
    expect(other).not.toHaveProperty("modelId");
  });

  it("serves the API from the template's routes", async () => {
    // Act
    const response = await fetch(`${stack.apiUrl}/items/i-1`);

    // Assess
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ event: { pathParameters: { id: "i-1" } } });
  });

  it("delivers an event put on the bus to the rule's Lambda (which writes to DynamoDB) and state machine", async () => {
    // Prepare
    const events = new EventBridgeClient({
      endpoint: stack.endpoints.eventbridge,
      region: "us-east-1",
      credentials: LOCAL_CREDENTIALS,
    });
    const busName = stack.model.eventBuses[0]?.name;

    // Act
    const answer = await events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: busName,
            Source: "fixture",
            DetailType: "ping",
            Detail: JSON.stringify({ kind: "go", key: "k1" }),
          },
        ],
      }),
    );
    events.destroy();
    await stack.events.idle();

    // Assess: the Lambda target stored the item; the state machine target ran with the transformed input.
    expect(answer.FailedEntryCount).toBe(0);
    const client = localDynamoClient(stack.endpoints.dynamodb);
    const tableName = stack.model.functions.find((f) => f.arn === workerA())?.environment.TABLE_NAME;
    const { Item } = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: "ITEM#k1" }, sk: { S: "ITEM" } } }),
    );
    client.destroy();
    expect(Item?.flavor).toEqual({ S: "a" });
    const execution = await waitFor(
      () =>
        stack.executions
          .list()
          .find((e) => JSON.stringify(e.input) === JSON.stringify({ scenario: "noop", from: "fixture" })),
      "the execution started by the event",
    );
    await execution.done;
    expect(execution.status).toBe("SUCCEEDED");
  });

  it("keeps DynamoDB data in the state folder across restarts", async () => {
    // Prepare: a stack on a state folder, one item written through a function.
    const stateDir = mkdtempSync(path.join(tmpdir(), "goal-loops-state-"));
    const options = {
      projectDir: FIXTURE_PROJECT_DIR,
      cdkOutDir,
      synth: false,
      port: 0,
      stateDir,
      fixturesDir: fixtures.dir,
      ...quiet,
    };
    const first = await startLocalStack(options);
    const arn = first.model.functions.find((f) => f.logicalId.startsWith("WorkerA"))?.arn ?? "";
    await first.lambdas.invoke(arn, { action: "put", key: "kept" });
    await first.stop();

    // Act
    const second = await startLocalStack(options);
    const client = localDynamoClient(second.endpoints.dynamodb);
    const tableName = second.model.functions.find((f) => f.arn === arn)?.environment.TABLE_NAME;
    const { Item } = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: "ITEM#kept" }, sk: { S: "ITEM" } } }),
    );
    client.destroy();
    await second.stop();
    await second.stop();
    rmSync(stateDir, { recursive: true, force: true });

    // Assess
    expect(second.storage).toBe(path.join(stateDir, "dynamodb"));
    expect(Item?.pk).toEqual({ S: "ITEM#kept" });
  });
});
