import { randomBytes, randomUUID } from "node:crypto";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DeleteObjectCommand, GetObjectCommand } from "@aws-sdk/client-s3";
import { type DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDbGoalStore } from "../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { DynamoDbStepLog } from "../../lambdas/adapters/dynamodb/dynamodb-step-log";
import { DynamoDbWorkspace } from "../../lambdas/adapters/dynamodb/dynamodb-workspace";
import { estimateItemBytes } from "../../lambdas/adapters/dynamodb/encoding/item-size";
import { withLargeItemOffload } from "../../lambdas/adapters/dynamodb/encoding/large-item-offload";
import { checkpointKey, stepKey, workspaceFileKey } from "../../lambdas/adapters/dynamodb/goal-table-keys";
import { PayloadMissingError } from "../../lambdas/adapters/shared/payload-store";
import { WorkspaceFileTooLargeError } from "../../lambdas/core/ports/workspace";
import { documentClientFor, dynamoClientFor } from "../support/dynamo-backends";
import { aCheckpoint } from "../support/goal-store-builders";
import { CountingPayloadStore, type LocalS3, PAYLOAD_BUCKET, startLocalS3 } from "../support/local-s3";
import { aStepRecord, aWriter, sha256Of } from "../support/loop-store-builders";

/** The goal table the contract created, where its backend listens. */
export interface LargePayloadTable {
  readonly endpoint: string;
  readonly tableName: string;
}

const INLINE_MAX_BYTES = 64 * 1024;
const MAX_FILE_BYTES = 8 * 1024 * 1024;
const DYNAMODB_ITEM_LIMIT = 400 * 1024;

/** Text that does not compress and is easy to check at its end: `size` bytes, `marker` last. */
function largeText(size: number, marker: string): string {
  const body = randomBytes(Math.ceil(size / 2)).toString("hex");
  return body.slice(0, size - marker.length) + marker;
}

/**
 * Items beyond DynamoDB's 400 KB: workspace files, checkpoints and step records whose large values
 * live in the payload bucket (a real S3 protocol: s3rver), behind the same adapters. Called inside
 * the goal store suite, so every case runs on each DynamoDB backend.
 */
export function describeLargePayloadContract(table: () => LargePayloadTable): void {
  describe("large payloads (local S3)", () => {
    let s3: LocalS3;
    let dynamo: DynamoDBClient;
    let plain: DynamoDBDocumentClient;
    let counted: CountingPayloadStore;
    let tableName: string;
    let workspace: DynamoDbWorkspace;
    let goals: DynamoDbGoalStore;
    let stepLog: DynamoDbStepLog;

    beforeAll(async () => {
      s3 = await startLocalS3();
      const { endpoint } = table();
      tableName = table().tableName;
      dynamo = dynamoClientFor(endpoint);
      plain = documentClientFor(dynamo);
      counted = new CountingPayloadStore(s3.payloads);
      const offloading = withLargeItemOffload(documentClientFor(dynamoClientFor(endpoint)), {
        payloads: counted,
        inlineMaxBytes: INLINE_MAX_BYTES,
      });
      workspace = new DynamoDbWorkspace({ client: offloading, tableName, maxFileBytes: MAX_FILE_BYTES });
      goals = new DynamoDbGoalStore({ client: offloading, tableName });
      stepLog = new DynamoDbStepLog({ client: offloading, tableName });
    });

    afterAll(async () => {
      dynamo?.destroy();
      await s3?.stop();
    });

    /** The item as DynamoDB holds it, without following its pointers. */
    async function storedItem(key: Record<string, string>): Promise<Record<string, unknown>> {
      const { Item } = await plain.send(
        new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
      );
      if (!Item) throw new Error(`no item ${JSON.stringify(key)}`);
      return Item;
    }

    async function objectText(key: string): Promise<string> {
      const object = await s3.client.send(new GetObjectCommand({ Bucket: PAYLOAD_BUCKET, Key: key }));
      return (await object.Body?.transformToString("utf8")) ?? "";
    }

    it("keeps a 600 KB and a 5 MB file: contents in S3 by sha256, metadata in DynamoDB", async () => {
      // Prepare
      const goalId = `goal-${randomUUID()}`;
      const report = largeText(600 * 1024, "END OF REPORT");
      const data = largeText(5 * 1024 * 1024, "total: 42");

      // Act
      const written = await workspace.writeFile({
        goalId,
        path: "out/report.html",
        content: report,
        writtenBy: aWriter(),
      });
      await workspace.writeFile({ goalId, path: "out/data.csv", content: data, writtenBy: aWriter() });
      const readReport = await workspace.readFile(goalId, "out/report.html");
      const readData = await workspace.readFile(goalId, "out/data.csv");
      const listed = await workspace.listFiles(goalId);

      // Assess
      expect(written.file).toMatchObject({ size: report.length, sha256: sha256Of(report), version: 1 });
      expect(readReport?.content).toBe(report);
      expect(readData?.content.endsWith("total: 42")).toBe(true);
      expect(readData?.sha256).toBe(sha256Of(data));
      expect(listed.map(({ path, size }) => ({ path, size }))).toEqual([
        { path: "out/data.csv", size: data.length },
        { path: "out/report.html", size: report.length },
      ]);
      const item = await storedItem(workspaceFileKey(goalId, "out/data.csv"));
      expect(estimateItemBytes(item)).toBeLessThan(INLINE_MAX_BYTES);
      expect(item).toMatchObject({
        path: "out/data.csv",
        size: data.length,
        sha256: sha256Of(data),
        version: 1,
      });
      expect(item.content).toBeUndefined();
      expect(item.offloaded).toEqual([
        {
          path: ["content"],
          key: `GOAL/${goalId}/${sha256Of(data)}`,
          sha256: sha256Of(data),
          size: data.length,
          encoding: "utf8",
        },
      ]);
      expect(await objectText(`GOAL/${goalId}/${sha256Of(data)}`)).toBe(data);
    });

    it("rewrites a large file keeping the replaced content for compensation, uploading only the new one", async () => {
      // Prepare
      const goalId = `goal-${randomUUID()}`;
      const first = largeText(700 * 1024, "first");
      const second = largeText(700 * 1024, "second");
      await workspace.writeFile({ goalId, path: "big.txt", content: first, writtenBy: aWriter() });
      const putsBefore = counted.puts;

      // Act
      const rewritten = await workspace.writeFile({
        goalId,
        path: "big.txt",
        content: second,
        writtenBy: aWriter(),
      });
      const again = await workspace.writeFile({
        goalId,
        path: "big.txt",
        content: second,
        writtenBy: aWriter(),
      });
      const read = await workspace.readFile(goalId, "big.txt");

      // Assess
      expect(rewritten).toMatchObject({ changed: true, file: { version: 2 } });
      expect(again.changed).toBe(false);
      expect(read?.content).toBe(second);
      expect(read?.previous).toEqual({ content: first, sha256: sha256Of(first) });
      // The replaced content is already in S3 under its hash: only the new content was uploaded.
      expect(counted.puts - putsBefore).toBe(1);
    });

    it("refuses a file over the maximum with its size and the limit, and keeps the last version", async () => {
      // Prepare
      const goalId = `goal-${randomUUID()}`;
      await workspace.writeFile({ goalId, path: "huge.bin", content: "small", writtenBy: aWriter() });

      // Act
      const refused = await workspace
        .writeFile({
          goalId,
          path: "huge.bin",
          content: "x".repeat(MAX_FILE_BYTES + 1),
          writtenBy: aWriter(),
        })
        .catch((error: unknown) => error);

      // Assess
      expect(refused).toBeInstanceOf(WorkspaceFileTooLargeError);
      expect(refused).toMatchObject({
        size: MAX_FILE_BYTES + 1,
        limitBytes: MAX_FILE_BYTES,
        message: `'huge.bin' is ${MAX_FILE_BYTES + 1} bytes; the workspace keeps files up to ${MAX_FILE_BYTES} bytes`,
      });
      expect((await workspace.readFile(goalId, "huge.bin"))?.content).toBe("small");
    });

    it("checkpoints a model answer with a 600 KB tool input; the first writer's body stays the one", async () => {
      // Prepare
      const goalId = `goal-${randomUUID()}`;
      const content = largeText(600 * 1024, "</html>");
      const base = aCheckpoint({ goalId });
      const withInput = (text: string) => ({
        ...base,
        turn: {
          ...base.turn,
          stopReason: "tool_use" as const,
          content: [
            { text: "Writing the page." },
            {
              toolUse: {
                toolUseId: "tool-1",
                name: "workspace_write",
                input: { path: "page.html", content: text },
              },
            },
          ],
        },
      });
      const first = withInput(content);

      // Act
      const stored = await goals.putCheckpoint(first);
      const retried = await goals.putCheckpoint(withInput(largeText(600 * 1024, "other")));
      const read = await goals.getCheckpoint(first.key);

      // Assess
      expect(stored).toEqual(first);
      expect(retried).toEqual(first);
      expect(read).toEqual(first);
      const item = await storedItem(checkpointKey(first.key));
      expect(estimateItemBytes(item)).toBeLessThan(DYNAMODB_ITEM_LIMIT);
      // The checkpoint is one encoded document (record schema 3): that is the value moved to S3.
      expect(item.offloaded).toEqual([expect.objectContaining({ path: ["checkpoint"], encoding: "binary" })]);
    });

    it("keeps a 500 KB reasoning block and redacted bytes of a checkpoint and its step as received", async () => {
      // Prepare: the thinking of a long turn, its signature, and binary redacted content
      const goalId = `goal-${randomUUID()}`;
      const thinking = largeText(500 * 1024, "so the page comes next.");
      const signature = randomBytes(3 * 1024).toString("base64");
      const redacted = randomBytes(200 * 1024).toString("base64");
      const base = aCheckpoint({ goalId });
      const checkpoint = {
        ...base,
        turn: {
          ...base.turn,
          content: [
            { reasoningContent: { reasoningText: { text: thinking, signature } } },
            { reasoningContent: { redactedContent: redacted } },
            { text: "Writing the page." },
          ],
        },
        conversation: { key: "conversation-1", prompt: "Current state: take the next step." },
      };
      const step = {
        ...aStepRecord(goalId, 1),
        turn: checkpoint.turn,
        conversation: checkpoint.conversation,
      };

      // Act
      await goals.putCheckpoint(checkpoint);
      await stepLog.putStep(step);
      const read = await goals.getCheckpoint(checkpoint.key);
      const [listed] = await stepLog.listRecentSteps(goalId, 1);

      // Assess: byte for byte, the large values in S3
      expect(read).toEqual(checkpoint);
      expect(listed).toEqual(step);
      const item = await storedItem(checkpointKey(checkpoint.key));
      expect(estimateItemBytes(item)).toBeLessThan(DYNAMODB_ITEM_LIMIT);
      // The checkpoint is one encoded document (record schema 3): that is the value moved to S3.
      expect(item.offloaded).toEqual([expect.objectContaining({ path: ["checkpoint"], encoding: "binary" })]);
    });

    it("logs a step whose artifact and tool input are 1 MB, and lists it back whole", async () => {
      // Prepare
      const goalId = `goal-${randomUUID()}`;
      const content = largeText(1024 * 1024, "last line");
      const record = aStepRecord(goalId, 1);
      const large = {
        ...record,
        observations: {
          ...record.observations,
          artifacts: [{ path: "haiku.txt", sha256: sha256Of(content), content }],
        },
      };

      // Act
      await stepLog.putStep(large);
      const [listed] = await stepLog.listRecentSteps(goalId, 5);

      // Assess
      expect(listed).toEqual(large);
      const item = await storedItem(stepKey(goalId, 1));
      expect(estimateItemBytes(item)).toBeLessThan(INLINE_MAX_BYTES);
    });

    it("never touches S3 for small items", async () => {
      // Prepare
      const goalId = `goal-${randomUUID()}`;
      const before = { puts: counted.puts, gets: counted.gets };

      // Act
      await workspace.writeFile({ goalId, path: "haiku.txt", content: "short", writtenBy: aWriter() });
      await workspace.readFile(goalId, "haiku.txt");
      await goals.putCheckpoint(aCheckpoint({ goalId }));
      await stepLog.putStep(aStepRecord(goalId, 1));
      await stepLog.listRecentSteps(goalId, 5);

      // Assess
      expect({ puts: counted.puts, gets: counted.gets }).toEqual(before);
    });

    it("names the missing body when an item points at one that is gone", async () => {
      // Prepare
      const goalId = `goal-${randomUUID()}`;
      const content = largeText(200 * 1024, "gone");
      await workspace.writeFile({ goalId, path: "gone.txt", content, writtenBy: aWriter() });
      const key = `GOAL/${goalId}/${sha256Of(content)}`;
      await s3.client.send(new DeleteObjectCommand({ Bucket: PAYLOAD_BUCKET, Key: key }));
      // A fresh client: the writer's knows the body was stored, but reads always fetch it.
      const fresh = new DynamoDbWorkspace({
        client: withLargeItemOffload(documentClientFor(dynamoClientFor(table().endpoint)), {
          payloads: s3.payloads,
          inlineMaxBytes: INLINE_MAX_BYTES,
        }),
        tableName,
      });

      // Act
      const failed = await fresh.readFile(goalId, "gone.txt").catch((error: unknown) => error);

      // Assess
      expect(failed).toBeInstanceOf(PayloadMissingError);
      expect(failed).toMatchObject({
        message: expect.stringContaining(`Payload ${key} is not in bucket ${PAYLOAD_BUCKET}`),
      });
    });
  });
}
