import { Stack, Validations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";
import type { GoalTable } from "./goal-table";

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
 * the table's indexes and KMS's wildcard data-key actions, both scoped to this table and its key.
 */
export function acknowledgeGoalTableGrant(grantee: IConstruct, goalTable: GoalTable): void {
  acknowledgeWildcardResource(
    grantee,
    `${goalTable.table.tableArn}/index/*`,
    "The grant covers the goal table's own secondary indexes (gsi1 lists goals by status); the wildcard never leaves this table.",
  );
  for (const action of ["kms:GenerateDataKey*", "kms:ReEncrypt*"]) {
    acknowledgeWildcardAction(
      grantee,
      action,
      "Data-key actions DynamoDB needs to encrypt and decrypt items with the table's customer-managed key; the statement is limited to that one key.",
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
