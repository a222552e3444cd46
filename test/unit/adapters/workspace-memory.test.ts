import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDbWorkspace } from "../../../lambdas/adapters/dynamodb/dynamodb-workspace";
import { documentClientFor, dynamoClientFor } from "../../support/dynamo-backends";
import { type ServedGoalTable, startGoalTable } from "../loop/support";

const WRITER = { runId: "r1", iteration: 0, toolUseId: "t1" };

/**
 * DynamoDbWorkspace writes from the file item it last read or wrote (no read before the write) and
 * archives a replaced version ahead of the write (`stageWrite`). Its conditional put is the check:
 * what another writer did meanwhile is never lost or overwritten.
 */
describe("DynamoDbWorkspace's remembered file items", () => {
  let table: ServedGoalTable;
  let client: DynamoDBClient;
  /** PutItem requests sent by the first workspace's own client. */
  let puts = 0;

  beforeAll(async () => {
    table = await startGoalTable();
    client = dynamoClientFor(table.endpoint);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === "PutItemCommand") puts += 1;
        return next(args);
      },
      { step: "initialize", name: "countPuts" },
    );
  });

  afterAll(async () => {
    client?.destroy();
    await table?.stop();
  });

  /** Two workspaces on one table, each with its own memory: two Lambda environments. */
  function twoWorkspaces() {
    return {
      mine: new DynamoDbWorkspace({ client: documentClientFor(client), tableName: table.tableName }),
      theirs: table.adapters.workspace,
    };
  }

  it("writes on top of what another writer stored since the file was remembered", async () => {
    // Prepare: mine remembers version 1; theirs writes version 2.
    const { mine, theirs } = twoWorkspaces();
    const goalId = "g-stale";
    await theirs.writeFile({ goalId, path: "a.md", content: "one", writtenBy: WRITER });
    await mine.readFile(goalId, "a.md");
    await theirs.writeFile({ goalId, path: "a.md", content: "two", writtenBy: WRITER });

    // Act
    const written = await mine.writeFile({ goalId, path: "a.md", content: "three", writtenBy: WRITER });

    // Assess: version 3 replaced theirs, and each replaced version is kept.
    expect(written).toMatchObject({ changed: true, file: { version: 3, previous: { content: "two" } } });
    expect(await theirs.readFile(goalId, "a.md")).toMatchObject({ version: 3, content: "three" });
    expect(await theirs.readVersion(goalId, "a.md", 2)).toMatchObject({ content: "two" });
    expect(await theirs.readVersion(goalId, "a.md", 1)).toMatchObject({ content: "one" });
  });

  it("asks the store before it answers that a write changes nothing", async () => {
    // Prepare: mine remembers "one"; theirs has replaced it since.
    const { mine, theirs } = twoWorkspaces();
    const goalId = "g-unchanged";
    await theirs.writeFile({ goalId, path: "a.md", content: "one", writtenBy: WRITER });
    await mine.readFile(goalId, "a.md");
    await theirs.writeFile({ goalId, path: "a.md", content: "two", writtenBy: WRITER });

    // Act: mine writes what it remembers the file holding
    const written = await mine.writeFile({ goalId, path: "a.md", content: "one", writtenBy: WRITER });

    // Assess: a real write on top of "two", not "unchanged" from memory
    expect(written).toMatchObject({ changed: true, file: { version: 3, previous: { content: "two" } } });
  });

  it("keeps a staged version whether or not the write comes, and the write then only moves the file", async () => {
    // Prepare: mine remembers version 1.
    const { mine, theirs } = twoWorkspaces();
    const goalId = "g-staged";
    await theirs.writeFile({ goalId, path: "a.md", content: "one", writtenBy: WRITER });
    await mine.readFile(goalId, "a.md");

    // Act: stage a write, look at the workspace before it comes, then write
    puts = 0;
    await mine.stageWrite({ goalId, path: "a.md", content: "two" });
    const beforeWrite = await theirs.readFile(goalId, "a.md");
    const putsToStage = puts;
    puts = 0;
    const written = await mine.writeFile({ goalId, path: "a.md", content: "two", writtenBy: WRITER });

    // Assess: staging archived version 1 and moved nothing; the write was one put (the file item).
    expect(putsToStage).toBe(1);
    expect(beforeWrite).toMatchObject({ version: 1, content: "one" });
    expect(puts).toBe(1);
    expect(written).toMatchObject({ changed: true, file: { version: 2, previous: { content: "one" } } });
    await theirs.writeFile({ goalId, path: "a.md", content: "three", writtenBy: WRITER });
    expect(await theirs.readVersion(goalId, "a.md", 1)).toMatchObject({ content: "one" });
    expect(await theirs.readVersion(goalId, "a.md", 2)).toMatchObject({ content: "two" });
  });

  it("stages nothing for a write that changes nothing or creates the file", async () => {
    // Prepare
    const { mine, theirs } = twoWorkspaces();
    const goalId = "g-nothing";
    await theirs.writeFile({ goalId, path: "a.md", content: "one", writtenBy: WRITER });
    await mine.readFile(goalId, "a.md");
    await mine.readFile(goalId, "new.md");

    // Act
    puts = 0;
    await mine.stageWrite({ goalId, path: "a.md", content: "one" });
    await mine.stageWrite({ goalId, path: "new.md", content: "fresh" });

    // Assess
    expect(puts).toBe(0);
    expect(await mine.writeFile({ goalId, path: "a.md", content: "one", writtenBy: WRITER })).toMatchObject({
      changed: false,
      file: { version: 1 },
    });
  });
});
