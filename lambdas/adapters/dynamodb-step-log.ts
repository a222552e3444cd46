import { type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { type StepLog, type StepRecord, StepRecordSchema } from "../core/ports/step-log";
import { parseOrThrow } from "../core/validation";
import { CorruptStoreItemError, isConditionalCheckFailed, toStoreError } from "./dynamodb-errors";
import { queryGoalPartition } from "./dynamodb-goal-partition";
import { parseStoredItem, toDocument } from "./dynamodb-items";
import { invalidField, STEP_PREFIX, stepKey } from "./goal-table-keys";
import { TABLE_DESIGN } from "./table-design";

const PK = TABLE_DESIGN.partitionKey;
const MAX_RECENT_STEPS = 1000;

export interface DynamoDbStepLogOptions {
  /** Created once at module scope by the handler and shared across invocations. */
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * The step log as items of the goal table (sk `STEP#<step>`, the record under `record`), append-only:
 * a step number is written once, so a retried act step cannot replace what the model already saw.
 */
export class DynamoDbStepLog implements StepLog {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoDbStepLogOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async putStep(step: StepRecord): Promise<StepRecord | undefined> {
    const record = parseOrThrow(StepRecordSchema, toDocument(step), "step record");
    const key = stepKey(record.goalId, record.step);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...key, record },
          ConditionExpression: "attribute_not_exists(#pk)",
          ExpressionAttributeNames: { "#pk": PK },
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw toStoreError(error, "putStep");
    }
    // First writer wins: an earlier attempt (or a racing one) logged this step number already.
    const stored = await this.client
      .send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }))
      .catch((error: unknown) => {
        throw toStoreError(error, "putStep");
      });
    if (!stored.Item) {
      throw new CorruptStoreItemError(
        `Step ${record.step} of goal ${record.goalId} vanished after a conflicting put`,
      );
    }
    return parseStoredItem(StepRecordSchema, stored.Item.record, "step record");
  }

  async listRecentSteps(goalId: string, limit: number): Promise<readonly StepRecord[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECENT_STEPS) {
      throw invalidField("limit", `must be an integer from 1 to ${MAX_RECENT_STEPS}`);
    }
    const newestFirst = await queryGoalPartition(this.client, {
      tableName: this.tableName,
      goalId,
      prefix: STEP_PREFIX,
      newestFirst: true,
      limit,
      operation: "listRecentSteps",
    });
    return newestFirst.reverse().map((item) => parseStoredItem(StepRecordSchema, item.record, "step record"));
  }
}
