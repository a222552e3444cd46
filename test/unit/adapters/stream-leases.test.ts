import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDbStreamLeases } from "../../../lambdas/adapters/dynamodb/limits/dynamodb-stream-leases";
import { createGoalTable } from "../../../lib/local/storage/create-goal-table";
import {
  type DynamoBackend,
  documentClientFor,
  dynamoClientFor,
  startDynalite,
} from "../../support/dynamo-backends";

describe("DynamoDbStreamLeases", () => {
  let backend: DynamoBackend;
  let client: ReturnType<typeof dynamoClientFor>;
  let leases: DynamoDbStreamLeases;
  // The real clock: release() drops lapsed leases as of Date.now(), so a fixed past NOW would have
  // every lease lapsed by the time it runs (as it did after 2026-12-07 10:01 UTC).
  const NOW = Date.now();

  beforeAll(async () => {
    backend = await startDynalite();
    client = dynamoClientFor(backend.endpoint);
    const tableName = `goals-${randomUUID()}`;
    await createGoalTable(client, tableName);
    leases = new DynamoDbStreamLeases(documentClientFor(client), tableName);
  });

  afterAll(async () => {
    client?.destroy();
    await backend?.stop();
  });

  it("never lets more than the bound open, however many ask at once; a release or a lapse frees a place", async () => {
    // Act: twelve streams ask for five places at once
    const granted = await Promise.all(
      Array.from({ length: 12 }, (_, index) => leases.acquire(`s${index}`, NOW + 60_000, NOW, 5)),
    );
    const whileFull = await leases.acquire("late", NOW + 60_000, NOW, 5);
    await leases.release(`s${granted.indexOf(true)}`);
    const afterRelease = await leases.acquire("after-release", NOW + 60_000, NOW, 5);
    const afterLapse = await leases.acquire("after-lapse", NOW + 120_000, NOW + 61_000, 5);

    // Assess
    expect(granted.filter(Boolean).length).toBeLessThanOrEqual(5);
    expect(granted.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(whileFull).toBe(granted.filter(Boolean).length < 5);
    expect(afterRelease).toBe(true);
    expect(afterLapse).toBe(true);
  });
});
