import { Stack } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { Grant, type IGrantable } from "aws-cdk-lib/aws-iam";
import type { IKey } from "aws-cdk-lib/aws-kms";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import { type PartitionPrefix, payloadKeyPrefix } from "../../lambdas/adapters/dynamodb/table-design";

/**
 * Which items of the goal table a function may touch, by the first part of their partition key
 * (`PARTITION_PREFIXES`), and how. Only single-item calls by key are offered: no Query, Scan,
 * DeleteItem or batch call, so a grantee can never list or remove items.
 */
export interface GoalItemAccess {
  /**
   * Items the grantee reads by key (`dynamodb:GetItem`), and the payload objects their large
   * values were moved to.
   *
   * @default - none
   */
  readonly get?: readonly PartitionPrefix[];
  /**
   * Items the grantee writes whole (`dynamodb:PutItem`, conditional or not), and the payload
   * objects an item over the inline limit moves its large values to.
   *
   * @default - none
   */
  readonly put?: readonly PartitionPrefix[];
  /**
   * Items the grantee writes whole that always stay far below the smallest inline limit (a key and
   * a TTL): `dynamodb:PutItem` without payload writes.
   *
   * @default - none
   */
  readonly putSmall?: readonly PartitionPrefix[];
}

/** What `grantGoalItems` needs of a `GoalTable` (a shape, so this module imports no construct). */
export interface GoalItemResources {
  readonly table: ITable;
  readonly bucket: IBucket;
  readonly encryptionKey: IKey;
}

/** `dynamodb:LeadingKeys` patterns: every partition key starting with one of the prefixes. */
function leadingKeys(prefixes: readonly PartitionPrefix[]) {
  return { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": prefixes.map((prefix) => `${prefix}*`) } };
}

/**
 * The least a function of the goal store needs for `access`, as separate statements:
 *
 * - `dynamodb:GetItem` and `dynamodb:PutItem` on the table itself (no index), each limited by
 *   `dynamodb:LeadingKeys` to the partitions named;
 * - `s3:GetObject` / `s3:PutObject` on the payload objects of those partitions only
 *   (`<bucket>/APPROVAL/*`, not `<bucket>/*`);
 * - on the table's own key, `kms:Decrypt` to read and `kms:Encrypt` + `kms:GenerateDataKey` to
 *   write, only when DynamoDB or S3 use the key on the function's behalf (`kms:ViaService`): the
 *   role cannot decrypt anything with the key directly.
 */
export function grantGoalItems(
  resources: GoalItemResources,
  grantee: IGrantable,
  access: GoalItemAccess,
): Grant {
  const get = [...new Set(access.get ?? [])];
  const put = [...new Set(access.put ?? [])];
  const puts = [...new Set([...put, ...(access.putSmall ?? [])])];
  if (get.length === 0 && puts.length === 0) {
    throw new Error("grantGoalItems: name at least one partition prefix to get or put");
  }
  const { table, bucket, encryptionKey } = resources;
  const grants: Grant[] = [];

  if (get.length > 0) {
    grants.push(
      Grant.addToPrincipal({
        grantee,
        actions: ["dynamodb:GetItem"],
        resourceArns: [table.tableArn],
        conditions: leadingKeys(get),
      }),
      Grant.addToPrincipal({
        grantee,
        actions: ["s3:GetObject"],
        resourceArns: get.map((prefix) => bucket.arnForObjects(`${payloadKeyPrefix(prefix)}*`)),
      }),
    );
  }
  if (puts.length > 0) {
    grants.push(
      Grant.addToPrincipal({
        grantee,
        actions: ["dynamodb:PutItem"],
        resourceArns: [table.tableArn],
        conditions: leadingKeys(puts),
      }),
    );
  }
  if (put.length > 0) {
    grants.push(
      Grant.addToPrincipal({
        grantee,
        actions: ["s3:PutObject"],
        resourceArns: put.map((prefix) => bucket.arnForObjects(`${payloadKeyPrefix(prefix)}*`)),
      }),
    );
  }
  const stack = Stack.of(table);
  grants.push(
    Grant.addToPrincipal({
      grantee,
      actions: ["kms:Decrypt", ...(puts.length > 0 ? ["kms:Encrypt", "kms:GenerateDataKey"] : [])],
      resourceArns: [encryptionKey.keyArn],
      conditions: {
        StringEquals: {
          "kms:ViaService": ["dynamodb", "s3"].map(
            (service) => `${service}.${stack.region}.${stack.urlSuffix}`,
          ),
        },
      },
    }),
  );
  return grants.reduce((all, grant) => all.combine(grant));
}
