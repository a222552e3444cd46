import { setTimeout as delay } from "node:timers/promises";
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { TABLE_DESIGN } from "../../../lambdas/adapters/dynamodb/table-design";

export interface CreateGoalTableOptions {
  /** How long to wait for the table and its index to become ACTIVE. @default 60_000 */
  readonly timeoutMs?: number;
  /**
   * Whether items expire at their `ttl`, as in AWS (the CDK construct turns TTL on). Off only for
   * writers on a clock of their own: TTL compares `ttl` with the real time. @default true
   */
  readonly timeToLive?: boolean;
}

const POLL_INTERVAL_MS = 50;

/**
 * Creates the goal table from TABLE_DESIGN (on demand, one GSI projecting everything) and waits
 * until it is ACTIVE, then enables TTL (unless `timeToLive` is false). For the local runtime and
 * the tests; in AWS the CDK construct owns the table. Calling it again for an existing table only
 * waits and checks TTL, so a local state directory kept across restarts works.
 */
export async function createGoalTable(
  client: DynamoDBClient,
  tableName: string,
  options: CreateGoalTableOptions = {},
): Promise<void> {
  const { partitionKey, sortKey, statusIndex } = TABLE_DESIGN;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [partitionKey, sortKey, statusIndex.partitionKey, statusIndex.sortKey].map(
          (name) => ({ AttributeName: name, AttributeType: "S" }),
        ),
        KeySchema: [
          { AttributeName: partitionKey, KeyType: "HASH" },
          { AttributeName: sortKey, KeyType: "RANGE" },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: statusIndex.name,
            KeySchema: [
              { AttributeName: statusIndex.partitionKey, KeyType: "HASH" },
              { AttributeName: statusIndex.sortKey, KeyType: "RANGE" },
            ],
            Projection: { ProjectionType: "ALL" },
          },
        ],
      }),
    );
  } catch (error) {
    if (!(error instanceof Error && error.name === "ResourceInUseException")) throw error;
  }
  await waitUntilActive(client, tableName, options.timeoutMs ?? 60_000);
  if (options.timeToLive ?? true) await enableTimeToLive(client, tableName);
}

async function waitUntilActive(client: DynamoDBClient, tableName: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every(
      (index) => index.IndexStatus === "ACTIVE",
    );
    if (table?.TableStatus === "ACTIVE" && indexesActive) return;
    if (Date.now() > deadline) {
      throw new Error(
        `Table ${tableName} is not ACTIVE after ${timeoutMs} ms (status ${table?.TableStatus})`,
      );
    }
    await delay(POLL_INTERVAL_MS);
  }
}

async function enableTimeToLive(client: DynamoDBClient, tableName: string): Promise<void> {
  const { TimeToLiveDescription: current } = await client.send(
    new DescribeTimeToLiveCommand({ TableName: tableName }),
  );
  if (current?.TimeToLiveStatus === "ENABLED" || current?.TimeToLiveStatus === "ENABLING") return;
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_DESIGN.ttlAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    // dynalite has no UpdateTimeToLive (it answers UnknownOperationException) and never expires
    // items anyway. DynamoDB Local accepts the setting and does expire items (see
    // createFakeClockGoalTable in the tests).
    if (!(error instanceof Error && error.name === "UnknownOperationException")) throw error;
  }
}
