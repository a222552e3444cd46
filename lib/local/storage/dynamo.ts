import { mkdirSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
} from "@aws-sdk/client-dynamodb";
import dynalite from "dynalite";
import { TABLE_DESIGN } from "../../../lambdas/adapters/dynamodb/table-design";
import { LOCAL_ENVIRONMENT, type TableSpec } from "../shared/cloud-assembly-model";
import { listen } from "../shared/listen";
import { createGoalTable } from "./create-goal-table";

/** A successful write request, and the partition keys of the items it wrote. */
export interface DynamoWrite {
  readonly tableName: string;
  readonly partitionKeys: readonly string[];
}

export interface LocalDynamo {
  readonly endpoint: string;
  /** Where the tables live: a folder, or `in memory`. */
  readonly storage: string;
  stop(): Promise<void>;
}

/**
 * dynalite in this process: in memory, or kept in a LevelDB folder (`stateDir`) across restarts.
 * Tables are ACTIVE as soon as they are created.
 */
export async function startLocalDynamo(
  options: {
    stateDir?: string;
    port?: number;
    /** Told of every write that succeeded (the change feed's source). */
    onWrite?: (write: DynamoWrite) => void;
  } = {},
): Promise<LocalDynamo> {
  if (options.stateDir !== undefined) mkdirSync(options.stateDir, { recursive: true });
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.stateDir === undefined ? {} : { path: options.stateDir }),
  });
  if (options.onWrite !== undefined) observeWrites(server, options.onWrite);
  const running = await listen(server, options.port);
  return { endpoint: running.url, storage: options.stateDir ?? "in memory", stop: running.close };
}

const WRITE_OPERATIONS = new Set(["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"]);

/**
 * Taps dynalite's requests: after a write answered 200, `onWrite` learns the table and the
 * partition keys written. Reads the same request body dynalite reads, without changing it.
 */
function observeWrites(server: Server, onWrite: (write: DynamoWrite) => void): void {
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    const operation = String(req.headers["x-amz-target"] ?? "").split(".")[1] ?? "";
    if (!WRITE_OPERATIONS.has(operation)) return;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.on("finish", () => {
      if (res.statusCode !== 200) return;
      for (const write of writesOf(operation, Buffer.concat(chunks).toString("utf8"))) onWrite(write);
    });
  });
}

const PK = TABLE_DESIGN.partitionKey;

interface AttributeMap {
  readonly [name: string]: { readonly S?: string } | undefined;
}
interface WriteRequest {
  readonly PutRequest?: { readonly Item?: AttributeMap };
  readonly DeleteRequest?: { readonly Key?: AttributeMap };
}
interface WriteBody {
  readonly TableName?: string;
  readonly Item?: AttributeMap;
  readonly Key?: AttributeMap;
  readonly RequestItems?: Readonly<Record<string, readonly WriteRequest[]>>;
}

function writesOf(operation: string, text: string): DynamoWrite[] {
  let body: WriteBody;
  try {
    body = JSON.parse(text) as WriteBody;
  } catch {
    return [];
  }
  const keyOf = (map: AttributeMap | undefined) => map?.[PK]?.S;
  const present = (keys: (string | undefined)[]) => keys.filter((key): key is string => key !== undefined);
  if (operation === "BatchWriteItem") {
    return Object.entries(body.RequestItems ?? {}).map(([tableName, requests]) => ({
      tableName,
      partitionKeys: present(requests.map((r) => keyOf(r.PutRequest?.Item) ?? keyOf(r.DeleteRequest?.Key))),
    }));
  }
  if (body.TableName === undefined) return [];
  return [{ tableName: body.TableName, partitionKeys: present([keyOf(body.Item) ?? keyOf(body.Key)]) }];
}

export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: LOCAL_ENVIRONMENT.region,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    maxAttempts: 1,
  });
}

/** Creates the template's tables (an existing one, from a kept state folder, is left as it is). */
export async function createTables(endpoint: string, tables: readonly TableSpec[]): Promise<void> {
  const client = localDynamoClient(endpoint);
  try {
    for (const table of tables) {
      if (isGoalTable(table)) await createGoalTable(client, table.tableName);
      else await createGenericTable(client, table);
    }
  } finally {
    client.destroy();
  }
}

/** The goal table's own creator (TTL included) only fits a table with exactly its design. */
function isGoalTable(table: TableSpec): boolean {
  const { partitionKey, sortKey, statusIndex, ttlAttribute } = TABLE_DESIGN;
  const keys = (schema: TableSpec["keySchema"]) =>
    schema.map((k) => `${k.AttributeName}:${k.KeyType}`).join(",");
  const [index, ...otherIndexes] = table.globalSecondaryIndexes;
  return (
    keys(table.keySchema) === `${partitionKey}:HASH,${sortKey}:RANGE` &&
    index?.IndexName === statusIndex.name &&
    keys(index.KeySchema) === `${statusIndex.partitionKey}:HASH,${statusIndex.sortKey}:RANGE` &&
    otherIndexes.length === 0 &&
    table.localSecondaryIndexes.length === 0 &&
    table.ttlAttribute === ttlAttribute
  );
}

async function createGenericTable(client: DynamoDBClient, table: TableSpec): Promise<void> {
  const projection = (p: TableSpec["globalSecondaryIndexes"][number]["Projection"]) => ({
    ProjectionType: p.ProjectionType ?? "ALL",
    ...(p.NonKeyAttributes === undefined ? {} : { NonKeyAttributes: [...p.NonKeyAttributes] }),
  });
  const input: CreateTableCommandInput = {
    TableName: table.tableName,
    BillingMode: "PAY_PER_REQUEST",
    KeySchema: [...table.keySchema],
    AttributeDefinitions: [...table.attributeDefinitions],
    ...(table.globalSecondaryIndexes.length === 0
      ? {}
      : {
          GlobalSecondaryIndexes: table.globalSecondaryIndexes.map((i) => ({
            IndexName: i.IndexName,
            KeySchema: [...i.KeySchema],
            Projection: projection(i.Projection),
          })),
        }),
    ...(table.localSecondaryIndexes.length === 0
      ? {}
      : {
          LocalSecondaryIndexes: table.localSecondaryIndexes.map((i) => ({
            IndexName: i.IndexName,
            KeySchema: [...i.KeySchema],
            Projection: projection(i.Projection),
          })),
        }),
  };
  try {
    await client.send(new CreateTableCommand(input));
  } catch (error) {
    if (!(error instanceof Error && error.name === "ResourceInUseException")) throw error;
  }
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table.tableName }));
    if (Table?.TableStatus === "ACTIVE") return;
    if (Date.now() > deadline) throw new Error(`Table ${table.tableName} is not ACTIVE after 10 s`);
    await delay(20);
  }
}
