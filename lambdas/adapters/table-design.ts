/**
 * The goal store's single-table design, shared by the CDK construct, the DynamoDB adapter and the
 * local runtime so the three can never disagree. Pure constants: no AWS SDK import.
 *
 * | item        | pk                  | sk                                          | gsi1pk                       | gsi1sk                              |
 * |-------------|---------------------|---------------------------------------------|------------------------------|-------------------------------------|
 * | goal        | GOAL#{goalId}       | GOAL                                        | TENANT#{tenantId}#GOALS      | STATUS#{status}#{createdAt}#{goalId} |
 * | event       | GOAL#{goalId}       | EVT#{seq, 12 digits}                        | –                            | –                                   |
 * | checkpoint  | GOAL#{goalId}       | CKPT#{role}#{runId}#{iteration}#{ordinal}   | –                            | –                                   |
 * | approval    | APPROVAL#{id}       | APPROVAL                                    | TENANT#{tenantId}#APPROVALS  | STATUS#{status}#{requestedAt}#{id}   |
 * | workspace   | GOAL#{goalId}       | WS#{path}                                   | –                            | –                                   |
 * | step        | GOAL#{goalId}       | STEP#{step, 8 digits}                       | –                            | –                                   |
 * | outbox      | GOAL#{goalId}       | OUTBOX#{messageId}                          | –                            | –                                   |
 * | fingerprint | GOAL#{goalId}       | FP#{sha256 of the fingerprint, 32 hex}      | –                            | –                                   |
 *
 * The goal item keeps its record and event outbox in `state`, brotli-compressed JSON; fingerprint
 * items (`{fingerprint, step}`, the first step that saw it) are written once and never changed.
 *
 * Any item larger than the inline limit keeps its largest values in the payload bucket instead
 * (large-item-offload.ts): `offloaded` lists each moved value's path and S3 pointer, and reads put
 * the values back before anything parses the item.
 */
export const TABLE_DESIGN = {
  partitionKey: "pk",
  sortKey: "sk",
  /** Lists a tenant's goals (or approvals) by status, oldest first. */
  statusIndex: { name: "gsi1", partitionKey: "gsi1pk", sortKey: "gsi1sk" },
  /** Epoch seconds; DynamoDB deletes expired checkpoints and decided approvals. */
  ttlAttribute: "ttl",
  /** Where an item lists the values it keeps in the payload bucket (absent on most items). */
  offloadAttribute: "offloaded",
} as const;
