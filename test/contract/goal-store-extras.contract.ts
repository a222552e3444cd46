import { randomUUID } from "node:crypto";
import { type DynamoDBDocumentClient, PutCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { DynamoDbGoalStore } from "../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { DynamoDbOutbox } from "../../lambdas/adapters/dynamodb/dynamodb-outbox";
import { DynamoDbStepLog } from "../../lambdas/adapters/dynamodb/dynamodb-step-log";
import { DynamoDbWorkspace } from "../../lambdas/adapters/dynamodb/dynamodb-workspace";
import { stepStateKey } from "../../lambdas/adapters/dynamodb/goal-table-keys";
import { INLINE_ONLY_FILE_MAX_BYTES as WORKSPACE_FILE_MAX_BYTES } from "../../lambdas/adapters/shared/payload-settings";
import { ValidationError } from "../../lambdas/core/goal/errors";
import { STEP_STATE_FORMAT } from "../../lambdas/core/ports/goal-history";
import { WorkspaceFileTooLargeError, type WorkspaceWriteResult } from "../../lambdas/core/ports/workspace";
import { aGoalRecord } from "../support/goal-record-builder";
import { aCheckpoint } from "../support/goal-store-builders";
import { anOutboxMessage, aStepRecord, aWriter, sha256Of } from "../support/loop-store-builders";

/** The table the goal store contract created on its backend, once its `beforeAll` has run. */
export interface ContractTable {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

const NOW = "2026-02-03T04:05:06.000Z";

function newGoalId(): string {
  return `goal-${randomUUID()}`;
}

/**
 * The workspace, step log and outbox cases of the goal store contract. Called inside the goal store
 * suite so they run on the same backend and table as every other case.
 */
export function describeLoopStoreContract(table: () => ContractTable): void {
  let workspace: DynamoDbWorkspace;
  let stepLog: DynamoDbStepLog;
  let outbox: DynamoDbOutbox;

  beforeAll(() => {
    const options = { ...table(), now: () => new Date(NOW) };
    workspace = new DynamoDbWorkspace(options);
    stepLog = new DynamoDbStepLog(options);
    outbox = new DynamoDbOutbox(options);
  });

  describe("workspace", () => {
    it("writes a new file at version 1, reads it back and lists it without its content", async () => {
      // Prepare
      const goalId = newGoalId();
      const content = "Haiku über DynamoDB ✓";
      const writtenBy = aWriter();

      // Act
      const written = await workspace.writeFile({ goalId, path: "haiku.txt", content, writtenBy });
      const read = await workspace.readFile(goalId, "haiku.txt");
      const listed = await workspace.listFiles(goalId);
      const missing = await workspace.readFile(goalId, "other.txt");

      // Assess
      const file = {
        goalId,
        path: "haiku.txt",
        content,
        sha256: sha256Of(content),
        size: Buffer.byteLength(content, "utf8"),
        version: 1,
        previous: null,
        writtenBy,
        updatedAt: NOW,
      };
      expect(file.size).toBeGreaterThan(content.length);
      expect(written).toEqual({ file, changed: true });
      expect(read).toEqual(file);
      expect(listed).toEqual([
        { path: "haiku.txt", sha256: file.sha256, size: file.size, version: 1, updatedAt: NOW },
      ]);
      expect(missing).toBeUndefined();
      expect(await workspace.listFiles(newGoalId())).toEqual([]);
    });

    it("a changed write bumps the version and keeps the replaced content for compensation", async () => {
      // Prepare
      const goalId = newGoalId();
      await workspace.writeFile({ goalId, path: "haiku.txt", content: "draft", writtenBy: aWriter() });

      // Act
      const rewritten = await workspace.writeFile({
        goalId,
        path: "haiku.txt",
        content: "final",
        writtenBy: aWriter({ iteration: 1 }),
      });

      // Assess
      expect(rewritten.changed).toBe(true);
      expect(rewritten.file).toMatchObject({
        content: "final",
        version: 2,
        previous: { content: "draft", sha256: sha256Of("draft") },
      });
      expect(await workspace.readFile(goalId, "haiku.txt")).toEqual(rewritten.file);
    });

    it("keeps every version a write replaced, so a compensation can restore any of them", async () => {
      // Prepare
      const goalId = newGoalId();
      for (const content of ["one", "two", "three"]) {
        await workspace.writeFile({ goalId, path: "notes.md", content, writtenBy: aWriter() });
      }

      // Act
      const versions = await Promise.all(
        [1, 2, 3, 4].map((version) => workspace.readVersion(goalId, "notes.md", version)),
      );

      // Assess
      expect(versions).toEqual([
        { deleted: false, content: "one", sha256: sha256Of("one") },
        { deleted: false, content: "two", sha256: sha256Of("two") },
        { deleted: false, content: "three", sha256: sha256Of("three") },
        undefined,
      ]);
      expect(await workspace.readVersion(goalId, "other.md", 1)).toBeUndefined();
    });

    it("deletes a file: it reads as missing and leaves the listing, its version count goes on, once", async () => {
      // Prepare
      const goalId = newGoalId();
      await workspace.writeFile({ goalId, path: "created.md", content: "made", writtenBy: aWriter() });
      await workspace.writeFile({ goalId, path: "kept.md", content: "stays", writtenBy: aWriter() });

      // Act
      const deleted = await workspace.deleteFile({ goalId, path: "created.md", writtenBy: aWriter() });
      const again = await workspace.deleteFile({ goalId, path: "created.md", writtenBy: aWriter() });
      const never = await workspace.deleteFile({ goalId, path: "never.md", writtenBy: aWriter() });
      const recreated = await workspace.writeFile({
        goalId,
        path: "created.md",
        content: "made again",
        writtenBy: aWriter(),
      });

      // Assess: the deletion is version 2, the new file version 3 with nothing before it to restore
      expect([deleted, again, never]).toEqual([{ deleted: true }, { deleted: false }, { deleted: false }]);
      expect(recreated.file).toMatchObject({ version: 3, previous: null });
      expect(await workspace.readVersion(goalId, "created.md", 2)).toEqual({ deleted: true });
      expect(await workspace.readVersion(goalId, "created.md", 1)).toMatchObject({ content: "made" });
      await workspace.deleteFile({ goalId, path: "created.md", writtenBy: aWriter() });
      expect(await workspace.readFile(goalId, "created.md")).toBeUndefined();
      expect((await workspace.listFiles(goalId)).map((entry) => entry.path)).toEqual(["kept.md"]);
    });

    it("rewriting the same content changes nothing: same version, same previous, same writer", async () => {
      // Prepare
      const goalId = newGoalId();
      await workspace.writeFile({ goalId, path: "haiku.txt", content: "draft", writtenBy: aWriter() });
      const { file } = await workspace.writeFile({
        goalId,
        path: "haiku.txt",
        content: "final",
        writtenBy: aWriter(),
      });

      // Act
      const retried = await workspace.writeFile({
        goalId,
        path: "haiku.txt",
        content: "final",
        writtenBy: aWriter({ runId: "run-2" }),
      });

      // Assess
      expect(retried).toEqual({ file, changed: false });
      expect(await workspace.readFile(goalId, "haiku.txt")).toEqual(file);
      expect(file.previous?.content).toBe("draft");
    });

    it("keeps a file at the size limit with a same-size previous, and refuses one byte more", async () => {
      // Prepare
      const goalId = newGoalId();
      const path = "big/report.txt";
      await workspace.writeFile({
        goalId,
        path,
        content: "a".repeat(WORKSPACE_FILE_MAX_BYTES),
        writtenBy: aWriter(),
      });

      // Act
      const atLimit = await workspace.writeFile({
        goalId,
        path,
        content: "b".repeat(WORKSPACE_FILE_MAX_BYTES),
        writtenBy: aWriter(),
      });
      const tooLarge = workspace
        .writeFile({ goalId, path, content: "c".repeat(WORKSPACE_FILE_MAX_BYTES + 1), writtenBy: aWriter() })
        .catch((error: unknown) => error);

      // Assess
      expect(atLimit.file).toMatchObject({ version: 2, size: WORKSPACE_FILE_MAX_BYTES });
      const refused = await tooLarge;
      expect(refused).toBeInstanceOf(WorkspaceFileTooLargeError);
      expect(refused).toMatchObject({
        message: expect.stringContaining(`'${path}' is ${WORKSPACE_FILE_MAX_BYTES + 1} bytes`),
      });
      expect((await workspace.readFile(goalId, path))?.version).toBe(2);
    });

    it("concurrent writers of different content all land, each on top of the one before (no lost update)", async () => {
      // Prepare
      const goalId = newGoalId();
      await workspace.writeFile({ goalId, path: "notes.md", content: "base", writtenBy: aWriter() });
      const contents = ["one", "two", "three", "four"];

      // Act
      const results = await Promise.all(
        contents.map((content) =>
          workspace.writeFile({ goalId, path: "notes.md", content, writtenBy: aWriter() }),
        ),
      );

      // Assess
      expect(results.every((result) => result.changed)).toBe(true);
      const byVersion = new Map<number, WorkspaceWriteResult["file"]>(
        results.map((result) => [result.file.version, result.file]),
      );
      expect([...byVersion.keys()].sort((a, b) => a - b)).toEqual([2, 3, 4, 5]);
      // Each write replaced exactly the write before it: following `previous` visits every content.
      let expectedPrevious = "base";
      for (const version of [2, 3, 4, 5]) {
        const file = byVersion.get(version);
        expect(file?.previous?.content).toBe(expectedPrevious);
        expectedPrevious = file?.content ?? "";
      }
      expect(await workspace.readFile(goalId, "notes.md")).toEqual(byVersion.get(5));
    });

    it("lists every file sorted by path, across result pages, and only this goal's", async () => {
      // Prepare
      const goalId = newGoalId();
      const small = ["notes.md", "a/z.txt", ".artifacts/tool-1.txt", "a.txt"];
      // Six files near the limit pass the 1 MB a query page reads: the listing must follow the pages.
      const large = ["large/1", "large/2", "large/3", "large/4", "large/5", "large/6"];
      for (const path of [...small, ...large]) {
        const content = path.startsWith("large/") ? path.padEnd(WORKSPACE_FILE_MAX_BYTES, ".") : path;
        await workspace.writeFile({ goalId, path, content, writtenBy: aWriter() });
      }
      await workspace.writeFile({
        goalId: newGoalId(),
        path: "elsewhere.txt",
        content: "x",
        writtenBy: aWriter(),
      });

      // Act
      const listed = await workspace.listFiles(goalId);

      // Assess
      expect(listed.map((entry) => entry.path)).toEqual([
        ".artifacts/tool-1.txt",
        "a.txt",
        "a/z.txt",
        ...large,
        "notes.md",
      ]);
      expect(listed.every((entry) => !("content" in entry) && !("previous" in entry))).toBe(true);
    });

    it("refuses a path outside the workspace with a ValidationError naming path", async () => {
      // Prepare
      const goalId = newGoalId();

      // Act
      const attempt = workspace
        .writeFile({ goalId, path: "../etc/passwd", content: "x", writtenBy: aWriter() })
        .catch((error: unknown) => error);

      // Assess
      expect(await attempt).toBeInstanceOf(ValidationError);
      expect(await attempt).toMatchObject({ issues: [{ path: "path" }] });
      expect(await workspace.listFiles(goalId)).toEqual([]);
    });
  });

  describe("step log", () => {
    it("lists the latest steps oldest first, in number order past 9, and only this goal's", async () => {
      // Prepare
      const goalId = newGoalId();
      for (const step of [10, 1, 11, 2, 9]) await stepLog.putStep(aStepRecord(goalId, step));
      await stepLog.putStep(aStepRecord(newGoalId(), 12));

      // Act
      const recent = await stepLog.listRecentSteps(goalId, 3);
      const all = await stepLog.listRecentSteps(goalId, 50);

      // Assess
      expect(recent.map((record) => record.step)).toEqual([9, 10, 11]);
      expect(all.map((record) => record.step)).toEqual([1, 2, 9, 10, 11]);
      expect(all[0]).toEqual(aStepRecord(goalId, 1));
      expect(await stepLog.listRecentSteps(newGoalId(), 5)).toEqual([]);
    });

    it("keeps the first record of a step number: a retried put changes nothing and returns it", async () => {
      // Prepare
      const goalId = newGoalId();
      const first = aStepRecord(goalId, 1, "first attempt");

      // Act
      const firstPut = await stepLog.putStep(first);
      const retriedPut = await stepLog.putStep(aStepRecord(goalId, 1, "retried attempt"));

      // Assess
      expect(firstPut).toBeUndefined();
      expect(retriedPut).toEqual(first);
      expect(await stepLog.listRecentSteps(goalId, 5)).toEqual([first]);
    });

    it("refuses a limit below 1 with a ValidationError naming limit", async () => {
      // Act
      const attempt = stepLog.listRecentSteps(newGoalId(), 0).catch((error: unknown) => error);

      // Assess
      expect(await attempt).toMatchObject({ name: "ValidationError", issues: [{ path: "limit" }] });
    });

    it("lists the steps of a range, in number order past 9, and nothing for an empty range", async () => {
      // Prepare
      const goalId = newGoalId();
      for (const step of [1, 2, 9, 10, 11, 12]) await stepLog.putStep(aStepRecord(goalId, step));

      // Act
      const middle = await stepLog.listSteps(goalId, { from: 2, to: 11 });
      const none = await stepLog.listSteps(goalId, { from: 5, to: 4 });

      // Assess
      expect(middle.map((record) => record.step)).toEqual([2, 9, 10, 11]);
      expect(none).toEqual([]);
    });
  });

  describe("step states", () => {
    it("records a counted step's state with the calls checkpointed per role and the workspace's files, once", async () => {
      // Prepare: two reason calls and a judge call checkpointed, one file written twice, one deleted.
      const goals = new DynamoDbGoalStore(table());
      const goalId = newGoalId();
      const record = aGoalRecord({ goalId, steps: 2 });
      for (const [iteration, role] of [
        [0, "reason"],
        [1, "reason"],
        [1, "judge"],
      ] as const) {
        await goals.putCheckpoint({ ...aCheckpoint({ goalId, iteration, role }), call: iteration });
      }
      await workspace.writeFile({ goalId, path: "b.md", content: "one", writtenBy: aWriter() });
      await workspace.writeFile({ goalId, path: "b.md", content: "two", writtenBy: aWriter() });
      await workspace.writeFile({ goalId, path: "a.md", content: "gone", writtenBy: aWriter() });
      await workspace.deleteFile({ goalId, path: "a.md", writtenBy: aWriter() });

      // Act
      await stepLog.recordStepState({ goalId, step: 2, record, planStepId: "notes", at: NOW });
      await stepLog.recordStepState({ goalId, step: 2, record: { ...record, noProgressCycles: 1 }, at: NOW });
      const stored = await stepLog.getStepState(goalId, 2);

      // Assess
      expect(stored).toEqual({
        kind: "state",
        state: {
          format: STEP_STATE_FORMAT,
          goalId,
          step: 2,
          record,
          calls: { reason: 2, judge: 1 },
          workspace: [{ path: "b.md", sha256: sha256Of("two"), version: 2 }],
          planStepId: "notes",
          at: NOW,
        },
      });
      expect(await stepLog.getStepState(goalId, 3)).toBeUndefined();
    });

    it("answers a state a newer goal-loops wrote by its format alone, never parsing it", async () => {
      // Prepare
      const goalId = newGoalId();
      const { client, tableName } = table();
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...stepStateKey(goalId, 1),
            format: STEP_STATE_FORMAT + 1,
            step: 1,
            state: new Uint8Array([7]),
          },
        }),
      );

      // Act
      const stored = await stepLog.getStepState(goalId, 1);

      // Assess
      expect(stored).toEqual({ kind: "newer_format", format: STEP_STATE_FORMAT + 1 });
    });

    it("lists a goal's checkpoints and fingerprints (with the step that saw each first), and only its own", async () => {
      // Prepare
      const goals = new DynamoDbGoalStore(table());
      const goalId = newGoalId();
      await goals.putCheckpoint(aCheckpoint({ goalId, role: "plan" }));
      await goals.putCheckpoint(aCheckpoint({ goalId, role: "execute", iteration: 3 }));
      await goals.putCheckpoint(aCheckpoint({ goalId: newGoalId() }));
      await goals.seenBefore(goalId, 1, ["tool:a:success:1"]);
      await goals.seenBefore(goalId, 2, ["tool:a:success:1", "artifact:b@2"]);

      // Act
      const checkpoints = await stepLog.listCheckpoints(goalId);
      const fingerprints = await stepLog.listFingerprints(goalId);

      // Assess
      expect(checkpoints.map((checkpoint) => [checkpoint.key.role, checkpoint.key.iteration])).toEqual([
        ["execute", 3],
        ["plan", 0],
      ]);
      expect(
        fingerprints.sort((a, b) => a.step - b.step || a.fingerprint.localeCompare(b.fingerprint)),
      ).toEqual([
        { fingerprint: "tool:a:success:1", step: 1 },
        { fingerprint: "artifact:b@2", step: 2 },
      ]);
    });
  });

  describe("outbox", () => {
    it("keeps the first message of a messageId: a retried put returns it with created false", async () => {
      // Prepare
      const first = anOutboxMessage({ message: "first" });
      const retried = { ...first, message: "second", createdAt: "2026-01-01T00:01:00.000Z" };

      // Act
      const created = await outbox.putMessage(first);
      const again = await outbox.putMessage(retried);

      // Assess
      expect(created).toEqual({ message: first, created: true });
      expect(again).toEqual({ message: first, created: false });
      expect(await outbox.listMessages(first.goalId)).toEqual([first]);
    });

    it("of 10 concurrent puts of one messageId exactly one creates it", async () => {
      // Prepare
      const goalId = newGoalId();
      const messageId = `msg-${randomUUID()}`;
      const attempts = Array.from({ length: 10 }, (_, index) =>
        anOutboxMessage({ goalId, messageId, message: `attempt ${index}` }),
      );

      // Act
      const results = await Promise.all(attempts.map((message) => outbox.putMessage(message)));

      // Assess
      expect(results.filter((result) => result.created)).toHaveLength(1);
      const stored = await outbox.listMessages(goalId);
      expect(stored).toHaveLength(1);
      for (const result of results) expect(result.message).toEqual(stored[0]);
    });

    it("records a claimed delivery's outcome once: a later outcome leaves the first in place", async () => {
      // Prepare: a notify claim, as the tool puts it before sending
      const startedAt = "2026-01-01T00:00:00.000Z";
      const claim = anOutboxMessage({
        delivery: { state: "sending", destination: "slack C0123ABCD", startedAt },
      });
      await outbox.putMessage(claim);
      const sent = {
        state: "sent",
        destination: "slack C0123ABCD",
        startedAt,
        sentAt: "2026-01-01T00:00:01.000Z",
        receipt: "1700000000.000100",
      } as const;

      // Act
      const recorded = await outbox.recordDelivery(claim.goalId, claim.messageId, sent);
      const late = await outbox.recordDelivery(claim.goalId, claim.messageId, {
        state: "failed",
        destination: "slack C0123ABCD",
        startedAt,
        failedAt: "2026-01-01T00:00:02.000Z",
        error: { name: "NotifySendError", message: "late" },
      });

      // Assess
      expect(recorded).toEqual({ ...claim, delivery: sent });
      expect(late).toEqual(recorded);
      expect(await outbox.listMessages(claim.goalId)).toEqual([recorded]);
    });

    it("leaves a message without a claim as it is when an outcome arrives", async () => {
      // Prepare
      const recordOnly = anOutboxMessage();
      await outbox.putMessage(recordOnly);

      // Act
      const answered = await outbox.recordDelivery(recordOnly.goalId, recordOnly.messageId, {
        state: "sent",
        destination: "slack C0123ABCD",
        startedAt: "2026-01-01T00:00:00.000Z",
        sentAt: "2026-01-01T00:00:01.000Z",
        receipt: "x",
      });

      // Assess
      expect(answered).toEqual(recordOnly);
    });

    it("lists a goal's messages by creation time, whatever their ids and precision", async () => {
      // Prepare
      const goalId = newGoalId();
      const late = anOutboxMessage({ goalId, messageId: "a", createdAt: "2026-01-01T00:00:02Z" });
      const middle = anOutboxMessage({ goalId, messageId: "b", createdAt: "2026-01-01T00:00:01.500Z" });
      const early = anOutboxMessage({ goalId, messageId: "c", createdAt: "2026-01-01T00:00:01Z" });
      for (const message of [late, middle, early, anOutboxMessage()]) await outbox.putMessage(message);

      // Act
      const listed = await outbox.listMessages(goalId);

      // Assess
      expect(listed.map((message) => message.messageId)).toEqual(["c", "b", "a"]);
    });
  });
}
