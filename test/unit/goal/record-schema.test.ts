import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDbGoalStore } from "../../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { stateOf } from "../../../lambdas/adapters/dynamodb/dynamodb-items";
import { DynamoDbStepLog } from "../../../lambdas/adapters/dynamodb/dynamodb-step-log";
import {
  checkpointKey,
  eventKey,
  goalKey,
  stepKey,
  stepStateKey,
} from "../../../lambdas/adapters/dynamodb/goal-table-keys";
import {
  downgradeStored,
  RECORD_SCHEMA,
  RecordSchemaTooNewError,
  upgradeStored,
} from "../../../lambdas/core/goal/record-schema";
import { createGoalTable } from "../../../lib/local/storage/create-goal-table";
import {
  type DynamoBackend,
  documentClientFor,
  dynamoClientFor,
  startDynalite,
} from "../../support/dynamo-backends";
import { aCheckpoint } from "../../support/goal-store-builders";

/**
 * Every released shape of the stored items, as that release's own store wrote them
 * (fixtures/records.schema-<n>.json, made by fixtures/write-record-fixtures.ts from that release's
 * tree), read with today's code. A raise of RECORD_SCHEMA adds its fixture here; none is removed.
 */
const RELEASED_SCHEMAS = [1, 2, 3];
const FIXTURES = path.join(import.meta.dirname, "fixtures");

interface Fixture {
  readonly writtenBy: string;
  readonly items: Record<string, unknown>[];
}

function fixture(schema: number): Fixture {
  return JSON.parse(readFileSync(path.join(FIXTURES, `records.schema-${schema}.json`), "utf8"));
}

/** A fixture item as DynamoDB holds it: `{base64}` back to bytes. */
function itemOf(stored: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(stored).map(([key, value]) =>
      typeof value === "object" && value !== null && "base64" in value
        ? [key, new Uint8Array(Buffer.from(String(value.base64), "base64"))]
        : [key, value],
    ),
  );
}

const GOAL_ID = "goal-fixture";

describe("record schemas", () => {
  let backend: DynamoBackend | undefined;
  let client: DynamoDBClient | undefined;
  let documents: DynamoDBDocumentClient;
  let store: DynamoDbGoalStore;
  let steps: DynamoDbStepLog;
  let tableName = "";

  beforeAll(async () => {
    backend = await startDynalite();
    client = dynamoClientFor(backend.endpoint);
    documents = documentClientFor(client);
  });

  afterAll(async () => {
    client?.destroy();
    await backend?.stop();
  });

  /** Puts a fixture's items into a fresh table, which the stores then read. */
  async function planted(
    schema: number,
    edit: (item: Record<string, unknown>) => Record<string, unknown> = (item) => item,
  ): Promise<string> {
    tableName = `goals-${randomUUID()}`;
    if (client === undefined) throw new Error("no DynamoDB client");
    await createGoalTable(client, tableName);
    store = new DynamoDbGoalStore({ client: documents, tableName });
    steps = new DynamoDbStepLog({ client: documents, tableName });
    for (const stored of fixture(schema).items) {
      await documents.send(new PutCommand({ TableName: tableName, Item: edit(itemOf(stored)) }));
    }
    return GOAL_ID;
  }

  /** The raw goal item, as the table holds it. */
  async function rawGoalItem(goalId: string) {
    const answer = await documents.send(
      new GetCommand({ TableName: tableName, Key: goalKey(goalId), ConsistentRead: true }),
    );
    return answer.Item;
  }

  describe.each(RELEASED_SCHEMAS)("items of record schema %i", (schema) => {
    it("keeps a fixture written by that release", () => {
      // Assess: the fixture is there and holds the four kinds of stored items.
      const kinds = new Set(fixture(schema).items.map((item) => String(item.sk).split("#")[0]));
      // Fixtures from schema 3 on keep the goal's event items too (their encoding follows the schema).
      expect([...kinds].sort()).toEqual(
        schema >= 3 ? ["CKPT", "EVT", "GOAL", "STATE", "STEP"] : ["CKPT", "GOAL", "STATE", "STEP"],
      );
    });

    it("reads the goal, its step, its checkpoint and its step state with today's code", async () => {
      // Prepare
      const goalId = await planted(schema);

      // Act
      const goal = await store.getGoal(goalId);
      const [step] = await steps.listSteps(goalId, { from: 1, to: 1 });
      const checkpoints = await steps.listCheckpoints(goalId);
      const state = await steps.getStepState(goalId, 1);

      // Assess
      expect(goal?.record).toMatchObject({ goalId: "goal-fixture", status: "waiting", steps: 1 });
      expect(goal?.record.schema).toBe(schema === RECORD_SCHEMA ? undefined : schema);
      // Schema 1 had no version: a goal of then runs on the live version, run after run.
      expect(goal?.record.runsOn).toEqual(
        schema === 1
          ? undefined
          : { version: "0.1.0-fixture1", stateMachineVersionArn: expect.stringContaining(":stateMachine:") },
      );
      expect(step).toMatchObject({ step: 1, runId: "r1" });
      expect(checkpoints.map((checkpoint) => checkpoint.key.role)).toEqual(["reason"]);
      expect(state).toMatchObject({ kind: "state", state: { format: RECORD_SCHEMA, step: 1 } });
      const { items: events } = await store.listEvents(goalId, {});
      expect(events).toEqual([expect.objectContaining({ seq: 1, type: "goal.created", goalId })]);
    });

    it("writes the goal back in the schema it is stored in", async () => {
      // Prepare
      const goalId = await planted(schema);
      const goal = await store.getGoal(goalId);
      if (goal === undefined) throw new Error("the fixture's goal is not readable");

      // Act
      await store.commit({ ...goal.record, progressNotes: ["written again"] }, goal.version, []);

      // Assess: the item says the same schema (none for schema 1, as that release wrote it).
      const raw = await rawGoalItem(goalId);
      expect(raw?.schema).toBe(schema === 1 ? undefined : schema);
      const again = await store.getGoal(goalId);
      expect(again?.record.progressNotes).toEqual(["written again"]);
      expect(again?.record.schema).toBe(goal.record.schema);
    });

    it("writes the goal's new events in the schema it is stored in, and reads them back", async () => {
      // Prepare
      const goalId = await planted(schema);
      const goal = await store.getGoal(goalId);
      if (goal === undefined) throw new Error("the fixture's goal is not readable");

      // Act
      const note = { type: "note", at: goal.record.updatedAt, text: "written again" };
      await store.commit(goal.record, goal.version, [note]);

      // Assess: encoded (one Binary attribute) from schema 3 on; before, the fields as that release wrote them.
      const seq = goal.record.lastEventSeq + 1;
      const raw = await documents.send(
        new GetCommand({ TableName: tableName, Key: eventKey(goalId, seq), ConsistentRead: true }),
      );
      if (schema >= 3) {
        expect(raw.Item?.event).toBeInstanceOf(Uint8Array);
        expect(raw.Item?.type).toBeUndefined();
      } else {
        expect(raw.Item).toMatchObject({ type: "note", text: "written again", seq });
      }
      const { items } = await store.listEvents(goalId, { after: seq - 1 });
      expect(items).toEqual([{ ...note, goalId, seq }]);
    });
  });

  describe.each(RELEASED_SCHEMAS)("a goal stored in record schema %i", (schema) => {
    /** The raw item under `key`, as the table holds it. */
    async function rawItem(key: Record<string, string>) {
      const answer = await documents.send(
        new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
      );
      if (answer.Item === undefined) throw new Error(`no item ${key.pk} ${key.sk}`);
      return answer.Item;
    }

    /** The fixture item of that schema whose sort key starts with `prefix`. */
    function fixtureItem(prefix: string): Record<string, unknown> {
      const found = fixture(schema).items.find((item) => String(item.sk).startsWith(prefix));
      if (found === undefined) throw new Error(`fixture ${schema} has no ${prefix} item`);
      return itemOf(found);
    }

    const namesOf = (item: Record<string, unknown>) => Object.keys(item).sort();

    it("has its steps, checkpoints and step states written as that schema's code wrote them, and reads them back", async () => {
      // Prepare: the goal as the table holds it, read by today's code (its record says its schema).
      const goalId = await planted(schema);
      const goal = await store.getGoal(goalId);
      if (goal === undefined) throw new Error("the fixture's goal is not readable");
      const stored = goal.record.schema;
      const [first] = await steps.listSteps(goalId, { from: 1, to: 1 });
      if (first === undefined) throw new Error("the fixture's step is not readable");
      const step = { ...first, step: 2, iteration: 1 };
      const checkpoint = aCheckpoint({ goalId, runId: "r1", iteration: 1, role: "reason" });
      const counted = { ...goal.record, steps: 2 };

      // Act
      await steps.putStep(step, stored);
      await store.putCheckpoint(checkpoint, stored);
      await steps.recordStepState({ goalId, step: 2, record: counted, at: step.at });

      // Assess: the same attributes as that release's items of the kind; the schema attribute as it
      // wrote it (none for 1); the documents plain maps before schema 3, one Binary from it on.
      const stepItem = await rawItem(stepKey(goalId, 2));
      const checkpointItem = await rawItem(checkpointKey(checkpoint.key));
      const stateItem = await rawItem(stepStateKey(goalId, 2));
      expect(namesOf(stepItem)).toEqual(namesOf(fixtureItem("STEP#")));
      expect(namesOf(checkpointItem)).toEqual(namesOf(fixtureItem("CKPT#")));
      expect(namesOf(stateItem)).toEqual(namesOf(fixtureItem("STATE#")));
      for (const item of [stepItem, checkpointItem]) {
        expect(item.schema).toBe(schema === 1 ? undefined : schema);
      }
      expect(stepItem.record instanceof Uint8Array).toBe(schema >= 3);
      expect(checkpointItem.checkpoint instanceof Uint8Array).toBe(schema >= 3);
      expect(stateItem.format).toBe(schema);
      // The state inside as that schema's code wrote it: its format, and a record of that shape.
      const state = stateOf(stateItem.state as Uint8Array, schema, "state of step 2") as Record<
        string,
        unknown
      >;
      const fixtureState = stateOf(fixtureItem("STATE#").state as Uint8Array, schema, "fixture state") as {
        record: Record<string, unknown>;
      };
      expect(state.format).toBe(schema);
      expect(namesOf(state.record as Record<string, unknown>)).toEqual(
        namesOf({ ...fixtureState.record, ...(schema === 2 ? { schema: 2 } : {}) }),
      );
      // Today's code reads all three back as they were put.
      expect(await steps.listSteps(goalId, { from: 2, to: 2 })).toEqual([step]);
      expect(await store.getCheckpoint(checkpoint.key)).toEqual(checkpoint);
      const read = await steps.getStepState(goalId, 2);
      expect(read).toMatchObject({ kind: "state", state: { format: RECORD_SCHEMA, step: 2 } });
      expect(read?.kind === "state" && read.state.record).toEqual(counted);
    });
  });

  describe("a step, checkpoint or step state of a schema this code cannot write", () => {
    it.each([
      [RECORD_SCHEMA + 1, "RecordSchemaTooNew"],
      [0, "RecordSchemaInvalid"],
      [1.5, "RecordSchemaInvalid"],
    ])("refuses schema %s with %s and writes nothing", async (schema, name) => {
      // Prepare
      const goalId = await planted(RECORD_SCHEMA);
      const goal = await store.getGoal(goalId);
      const [first] = await steps.listSteps(goalId, { from: 1, to: 1 });
      if (goal === undefined || first === undefined) throw new Error("the fixture's goal is not readable");
      const checkpoint = aCheckpoint({ goalId, runId: "r1", iteration: 1, role: "reason" });

      // Act + Assess
      await expect(steps.putStep({ ...first, step: 2 }, schema)).rejects.toMatchObject({ name });
      await expect(store.putCheckpoint(checkpoint, schema)).rejects.toMatchObject({ name });
      // A step state's schema is its record's, which the record's own schema refuses when it is no schema.
      const record = { ...goal.record, schema };
      await expect(steps.recordStepState({ goalId, step: 2, record, at: first.at })).rejects.toMatchObject({
        name: schema > RECORD_SCHEMA ? name : "ValidationError",
      });
      expect(await steps.listSteps(goalId, { from: 2, to: 2 })).toEqual([]);
      expect(await store.getCheckpoint(checkpoint.key)).toBeUndefined();
      expect(await steps.getStepState(goalId, 2)).toBeUndefined();
    });
  });

  describe("an item of a newer schema than this code reads", () => {
    const newer = RECORD_SCHEMA + 1;
    const fromTheFuture = (item: Record<string, unknown>) =>
      item.sk === "GOAL" || String(item.sk).startsWith("CKPT#") || String(item.sk).startsWith("STEP#")
        ? { ...item, schema: newer }
        : item;

    it("stops every read with RecordSchemaTooNew, naming the schema", async () => {
      // Prepare
      const goalId = await planted(RECORD_SCHEMA, fromTheFuture);

      // Act + Assess
      await expect(store.getGoal(goalId)).rejects.toMatchObject({
        name: "RecordSchemaTooNew",
        schema: newer,
      });
      await expect(steps.listSteps(goalId, { from: 1, to: 1 })).rejects.toBeInstanceOf(
        RecordSchemaTooNewError,
      );
      await expect(steps.listCheckpoints(goalId)).rejects.toBeInstanceOf(RecordSchemaTooNewError);
    });

    it("writes nothing: a commit on its account changes no byte of the item", async () => {
      // Prepare: a record this code could write (read from today's shape), over an item a newer version wrote.
      await planted(RECORD_SCHEMA);
      const record = (await store.getGoal(GOAL_ID))?.record;
      if (record === undefined) throw new Error("the fixture's goal is not readable");
      const goalId = await planted(RECORD_SCHEMA, fromTheFuture);
      const before = await rawGoalItem(goalId);

      // Act
      const commit = store.commit(record, 1, [{ type: "note", at: record.updatedAt }]);

      // Assess
      await expect(commit).rejects.toMatchObject({ name: "RecordSchemaTooNew" });
      expect(await rawGoalItem(goalId)).toEqual(before);
    });
  });

  describe("the migrations", () => {
    it("take a schema-1 goal record forward and back to the same document", () => {
      // Prepare
      const stored = { goalId: "g", status: "running", runId: "r1" };

      // Act
      const up = upgradeStored("goal", stored, 1, "goal g");
      const down = downgradeStored("goal", { ...(up as object), runsOn: { version: "v" } }, 1);

      // Assess: forward it knows it is stored in schema 1; back, schema 1 never had `runsOn`.
      expect(up).toEqual({ ...stored, schema: 1 });
      expect(down).toEqual(stored);
    });

    it("take a format-1 step state and the record inside it forward", () => {
      // Act
      const up = upgradeStored("stepState", { format: 1, step: 3, record: { goalId: "g" } }, 1, "state");

      // Assess
      expect(up).toEqual({ format: RECORD_SCHEMA, step: 3, record: { goalId: "g", schema: 1 } });
    });

    it("refuse a schema they have no migration from as too new, before anything is read", () => {
      expect(() => upgradeStored("checkpoint", { anything: true }, RECORD_SCHEMA + 1, "checkpoint")).toThrow(
        RecordSchemaTooNewError,
      );
    });
  });
});
