import { Stack, Validations } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import type { IConstruct } from "constructs";
import { payloadKeyPrefix } from "../../lambdas/adapters/dynamodb/table-design";
import type { GoalItemAccess } from "./goal-item-grant";

/**
 * What `acknowledgeGoalTableGrant` needs of a `GoalTable`: its table and its payload bucket. A
 * shape rather than the class, so this module imports no construct (the constructs import it).
 */
export interface GoalStoreResources {
  readonly table: ITable;
  readonly payloadBucket: { readonly bucket: IBucket };
}

/**
 * Acknowledges one AwsSolutions finding on a construct (and what it contains), with the reason
 * kept in the validation report. `finding` is the rule id, with the finding in brackets for rules
 * that report several per resource: `AwsSolutions-IAM5[Resource::*]`.
 */
export function acknowledgeNag(construct: IConstruct, finding: string, reason: string): void {
  Validations.of(construct).acknowledge({ id: `AwsSolutions::${finding}`, reason });
}

/** Acknowledges an IAM5 finding for one wildcard resource, given as the ARN (token or not) the policy holds. */
export function acknowledgeWildcardResource(
  construct: IConstruct,
  resourceArn: string,
  reason: string,
): void {
  acknowledgeNag(
    construct,
    `AwsSolutions-IAM5[Resource::${nagReferenceName(construct, resourceArn)}]`,
    reason,
  );
}

/** Acknowledges an IAM5 finding for one wildcard action, such as `kms:GenerateDataKey*`. */
export function acknowledgeWildcardAction(construct: IConstruct, action: string, reason: string): void {
  acknowledgeNag(construct, `AwsSolutions-IAM5[Action::${action}]`, reason);
}

/**
 * Acknowledges what `GoalTable.grantReadWriteData` puts in a grantee's policy that IAM5 reports:
 * the table's indexes, the payload bucket's objects and KMS's wildcard data-key actions, each
 * scoped to this table, its bucket and its key.
 */
export function acknowledgeGoalTableGrant(grantee: IConstruct, goalTable: GoalStoreResources): void {
  acknowledgeWildcardResource(
    grantee,
    `${goalTable.table.tableArn}/index/*`,
    "The grant covers the goal table's own secondary indexes (gsi1 lists goals by status); the wildcard never leaves this table.",
  );
  acknowledgeWildcardResource(
    grantee,
    `${goalTable.payloadBucket.bucket.bucketArn}/*`,
    "Object keys of the goal store's own payload bucket are content hashes under each item's partition, known only at run time; " +
      "the statement allows s3:GetObject and s3:PutObject (no delete, no list) on this one bucket.",
  );
  acknowledgeWildcardAction(
    grantee,
    "kms:GenerateDataKey*",
    "Data-key actions DynamoDB needs to encrypt items with the table's customer-managed key; the statement is limited to that one key.",
  );
}

/**
 * Acknowledges what `GoalTable.grantItems` puts in a grantee's policy that IAM5 reports: one
 * object-key prefix of the payload bucket per partition the grantee reads or writes whole items of
 * (`<bucket>/APPROVAL/*`). The table, its key and the actions are named exactly.
 */
export function acknowledgeGoalItemGrant(
  grantee: IConstruct,
  goalTable: GoalStoreResources,
  access: GoalItemAccess,
): void {
  for (const prefix of new Set([...(access.get ?? []), ...(access.put ?? [])])) {
    const objects = payloadKeyPrefix(prefix);
    acknowledgeWildcardResource(
      grantee,
      goalTable.payloadBucket.bucket.arnForObjects(`${objects}*`),
      `Payload objects of ${prefix} items only: their keys are content hashes under ${objects}<id>/, known only at run ` +
        "time; the grantee may get (and put, where it writes such items) objects there, never list or delete them.",
    );
  }
}

/**
 * A string as cdk-nag names it in a finding: `Ref` becomes `<Name>`, `Fn::GetAtt` becomes
 * `<Resource.Attribute>`, `Fn::Join` is flattened (cdk-nag's `flattenCfnReference`, which it
 * does not export). Resolved now, so the names match however the stack's environment is set.
 */
export function nagReferenceName(scope: IConstruct, value: string): string {
  return flatten(Stack.of(scope).resolve(value));
}

function flatten(node: unknown): string {
  if (node === undefined) return "";
  if (typeof node === "string") return node.replace(/\$\{/g, "<").replace(/\}/g, ">");
  if (typeof node === "object" && node !== null) {
    const join: unknown = Reflect.get(node, "Fn::Join");
    if (Array.isArray(join) && typeof join[0] === "string" && Array.isArray(join[1])) {
      return join[1].map(flatten).join(join[0]);
    }
    const getAtt: unknown = Reflect.get(node, "Fn::GetAtt");
    if (Array.isArray(getAtt)) return `<${flatten(getAtt[0])}.${flatten(getAtt[1])}>`;
    const ref: unknown = Reflect.get(node, "Ref");
    if (ref !== undefined) return `<${flatten(ref)}>`;
  }
  return JSON.stringify(node);
}
