import { ConditionalCheckFailedException, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";

/**
 * The example help desk's tickets, in the tools' own DynamoDB table (`table: "tickets"` in the
 * configuration: the construct creates it and puts its name in TOOL_TABLE_NAME). Items are
 * `pk = TICKET#<id>`, `sk = TICKET`. The table starts empty, so the first call of a container puts
 * the demo tickets that are not there yet (conditional puts: nothing a user changed is overwritten).
 */

export type Priority = "low" | "normal" | "high";

export interface Ticket {
  readonly id: string;
  readonly title: string;
  readonly status: "open" | "pending" | "closed";
  readonly priority: Priority;
  readonly customer: string;
  readonly lastUpdate: string;
}

const DEMO_TICKETS: readonly Ticket[] = [
  {
    id: "T-1042",
    title: "Payment page times out after 30 seconds",
    status: "open",
    priority: "high",
    customer: "Northwind",
    lastUpdate: "Customer reports checkout fails for every card since the 2.0 release.",
  },
  {
    id: "T-1043",
    title: "Invoice PDF shows the wrong VAT number",
    status: "pending",
    priority: "normal",
    customer: "Contoso",
    lastUpdate: "Waiting for the customer's corrected VAT id.",
  },
];

const tableName = process.env.TOOL_TABLE_NAME ?? "";
// No explicit endpoint: the SDK honours AWS_ENDPOINT_URL_DYNAMODB, which the local stack sets.
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: process.env.AWS_REGION }));
let seeded: Promise<void> | undefined;

const keyOf = (id: string) => ({ pk: `TICKET#${id}`, sk: "TICKET" });

async function seedDemoTickets(): Promise<void> {
  await Promise.all(
    DEMO_TICKETS.map(async (ticket) => {
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...keyOf(ticket.id), ...ticket },
            ConditionExpression: "attribute_not_exists(pk)",
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }),
  );
}

async function ready(): Promise<void> {
  if (tableName === "")
    throw new Error('TOOL_TABLE_NAME is not set: configure the tool with table: "tickets"');
  seeded ??= seedDemoTickets().catch((error: unknown) => {
    seeded = undefined;
    throw error;
  });
  await seeded;
}

export async function getTicket(id: string): Promise<Ticket | undefined> {
  await ready();
  const { Item } = await documents.send(
    new GetCommand({ TableName: tableName, Key: keyOf(id), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const { pk: _pk, sk: _sk, ...ticket } = Item;
  return ticket as Ticket;
}

/**
 * Sets a ticket's priority and answers the one it replaced. The call's idempotency key is kept on
 * the item: the same call again (a retried step) answers the first change instead of making one.
 */
export async function setPriority(
  id: string,
  priority: Priority,
  changeKey: string,
): Promise<{ previousPriority: Priority; priority: Priority } | undefined> {
  await ready();
  const current = await documents.send(
    new GetCommand({ TableName: tableName, Key: keyOf(id), ConsistentRead: true }),
  );
  if (!current.Item) return undefined;
  const last = current.Item.lastChange as { key?: string; previousPriority?: Priority } | undefined;
  if (last?.key === changeKey && last.previousPriority !== undefined) {
    return { previousPriority: last.previousPriority, priority: current.Item.priority as Priority };
  }
  const previousPriority = current.Item.priority as Priority;
  await documents.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keyOf(id),
      UpdateExpression: "SET priority = :priority, lastChange = :change",
      ExpressionAttributeValues: {
        ":priority": priority,
        ":change": { key: changeKey, previousPriority },
      },
    }),
  );
  return { previousPriority, priority };
}
