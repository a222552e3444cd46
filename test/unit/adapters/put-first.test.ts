import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putFirst } from "../../../lambdas/adapters/dynamodb/dynamodb-put-first";
import { documentClientFor, dynamoClientFor } from "../../support/dynamo-backends";
import { type ServedGoalTable, startGoalTable } from "../loop/support";

/** A failure as the SDK raises it: the error's name and whose fault it is. */
function sdkError(name: string): Error {
  return Object.assign(new Error(name), { name, $fault: "client" });
}

describe("putFirst on dynalite", () => {
  let table: ServedGoalTable;
  const clients: DynamoDBClient[] = [];

  beforeAll(async () => {
    table = await startGoalTable();
  });

  afterAll(async () => {
    for (const client of clients) client.destroy();
    await table.stop();
  });

  /**
   * A document client of the test's own; `before` runs ahead of each request it sends, by command
   * name, and may throw as DynamoDB would.
   */
  function documents(before: (commandName: string) => Promise<void> = async () => undefined) {
    const client = dynamoClientFor(table.endpoint);
    clients.push(client);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        await before(context.commandName ?? "?");
        return next(args);
      },
      { step: "initialize", name: "beforeRequest" },
    );
    return documentClientFor(client);
  }

  let stepNumber = 0;
  /** A step item's key and content no other test uses. */
  function aStepItem() {
    stepNumber += 1;
    return {
      tableName: table.tableName,
      key: { pk: "GOAL#g-put-first", sk: `STEP#${String(stepNumber).padStart(8, "0")}` },
      item: { record: { step: stepNumber } },
      operation: "putStep",
    };
  }

  it("answers undefined when it wrote the item, and the first writer's item to a later put", async () => {
    // Prepare
    const input = aStepItem();
    const client = documents();

    // Act
    const first = await putFirst(client, input);
    const second = await putFirst(client, { ...input, item: { record: { step: 0, note: "second" } } });

    // Assess
    expect(first).toBeUndefined();
    expect(second).toEqual({ ...input.key, ...input.item });
  });

  it("fails with CorruptStoreItemError naming the item when the first writer's item vanished", async () => {
    // Prepare: the item is there when the put's condition is checked, gone when it is read back.
    const input = aStepItem();
    await putFirst(documents(), input);
    const raw = documents();
    const vanishing = documents(async (commandName) => {
      if (commandName === "GetItemCommand") {
        await raw.send(new DeleteCommand({ TableName: input.tableName, Key: input.key }));
      }
    });

    // Act
    const attempt = putFirst(vanishing, input);

    // Assess
    await expect(attempt).rejects.toMatchObject({
      name: "CorruptStoreItemError",
      message: `putStep: item GOAL#g-put-first ${input.key.sk} vanished after a conflicting put`,
    });
  });

  it("names the operation when the put or the read-back fails, retryable when DynamoDB throttles", async () => {
    // Prepare
    const taken = aStepItem();
    await putFirst(documents(), taken);
    const throttledPut = documents(async (commandName) => {
      if (commandName === "PutItemCommand") throw sdkError("ThrottlingException");
    });
    const deniedRead = documents(async (commandName) => {
      if (commandName === "GetItemCommand") throw sdkError("AccessDeniedException");
    });

    // Act
    const put = putFirst(throttledPut, aStepItem());
    const read = putFirst(deniedRead, taken);

    // Assess
    await expect(put).rejects.toMatchObject({
      name: "GoalStoreUnavailableError",
      message: "DynamoDB putStep failed: ThrottlingException",
    });
    await expect(read).rejects.toMatchObject({
      name: "GoalStoreBackendError",
      message: "DynamoDB putStep failed: AccessDeniedException",
    });
  });
});
