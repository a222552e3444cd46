import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { parseOrThrow } from "../../core/goal/validation";
import { type StepLog, type StepRecord, StepRecordSchema } from "../../core/ports/step-log";
import { queryGoalPartition } from "./dynamodb-goal-partition";
import { parseStoredItem, toDocument } from "./dynamodb-items";
import { putFirst } from "./dynamodb-put-first";
import { invalidField, STEP_PREFIX, stepKey } from "./goal-table-keys";

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
    // First writer wins: an earlier attempt (or a racing one) may have logged this number already.
    const stored = await putFirst(this.client, {
      tableName: this.tableName,
      key: stepKey(record.goalId, record.step),
      item: { record },
      operation: "putStep",
    });
    return stored && parseStoredItem(StepRecordSchema, stored.record, "step record");
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
