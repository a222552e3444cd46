import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { putFirst } from "../../../lambdas/adapters/dynamodb-put-first";

/** What a document client answers, one entry per request: an output, or an error it throws. */
type Answer = { readonly output: Record<string, unknown> } | { readonly error: Error };

/** A document client that answers `answers` in order and records the command of each request. */
function scriptedClient(answers: readonly Answer[]) {
  const commands: string[] = [];
  const client = {
    send: async (command: object) => {
      commands.push(command.constructor.name);
      const answer = answers[commands.length - 1];
      if (!answer) throw new Error(`no answer scripted for request ${commands.length}`);
      if ("error" in answer) throw answer.error;
      return answer.output;
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, commands };
}

function named(name: string, fault?: "client" | "server"): Error {
  return Object.assign(new Error(name), { name, ...(fault ? { $fault: fault } : {}) });
}

const INPUT = {
  tableName: "goals",
  key: { pk: "GOAL#g-1", sk: "STEP#00000003" },
  item: { record: { step: 3 } },
  operation: "putStep",
  what: "Step 3 of goal g-1",
};

describe("putFirst", () => {
  it("answers undefined after one put when no item has the key", async () => {
    // Prepare
    const { client, commands } = scriptedClient([{ output: {} }]);

    // Act
    const stored = await putFirst(client, INPUT);

    // Assess
    expect(stored).toBeUndefined();
    expect(commands).toEqual(["PutCommand"]);
  });

  it("answers the first writer's item when the put's condition fails", async () => {
    // Prepare
    const first = { ...INPUT.key, record: { step: 3, note: "first" } };
    const { client, commands } = scriptedClient([
      { error: named("ConditionalCheckFailedException", "client") },
      { output: { Item: first } },
    ]);

    // Act
    const stored = await putFirst(client, INPUT);

    // Assess
    expect(stored).toEqual(first);
    expect(commands).toEqual(["PutCommand", "GetCommand"]);
  });

  it("fails with CorruptStoreItemError naming the item when the first writer's item vanished", async () => {
    // Prepare
    const { client } = scriptedClient([
      { error: named("ConditionalCheckFailedException", "client") },
      { output: {} },
    ]);

    // Act
    const attempt = putFirst(client, INPUT);

    // Assess
    await expect(attempt).rejects.toMatchObject({
      name: "CorruptStoreItemError",
      message: "Step 3 of goal g-1 vanished after a conflicting put",
    });
  });

  it("names the operation when the put or the read-back fails, retryable when DynamoDB throttles", async () => {
    // Prepare
    const throttledPut = scriptedClient([{ error: named("ThrottlingException", "client") }]);
    const deniedRead = scriptedClient([
      { error: named("ConditionalCheckFailedException", "client") },
      { error: named("AccessDeniedException", "client") },
    ]);

    // Act
    const put = putFirst(throttledPut.client, INPUT);
    const read = putFirst(deniedRead.client, INPUT);

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
