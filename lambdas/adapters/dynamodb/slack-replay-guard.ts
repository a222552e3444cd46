import { type DynamoDBDocumentClient, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { ReplayGuard } from "../../core/human/slack/replay-guard";
import { isConditionalCheckFailed, toStoreError } from "../shared/store-errors";
import { PARTITION_PREFIXES, TABLE_DESIGN } from "./table-design";

const PK = TABLE_DESIGN.partitionKey;
const SK = TABLE_DESIGN.sortKey;

/** The item that remembers one handled Slack request: pk `SLACK#{signature}`, sk `SLACK_REQUEST`. */
export function slackRequestKey(signature: string) {
  return { [PK]: `${PARTITION_PREFIXES.slackRequest}${signature}`, [SK]: "SLACK_REQUEST" };
}

/**
 * The replay guard as items of the goal table: a conditional put per signature, deleted by the
 * table's TTL once the signature's timestamp is outside Slack's window. DynamoDB deletes expired
 * items late, not early, so an item is never gone while its request could still be accepted.
 */
export class DynamoDbReplayGuard implements ReplayGuard {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async firstSeen(signature: string, expiresAt: Date): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...slackRequestKey(signature),
            [TABLE_DESIGN.ttlAttribute]: Math.ceil(expiresAt.getTime() / 1000),
          },
          ConditionExpression: "attribute_not_exists(#pk)",
          ExpressionAttributeNames: { "#pk": PK },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw toStoreError(error, "recordSlackRequest");
    }
  }
}
