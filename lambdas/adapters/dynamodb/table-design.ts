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
 * | step state  | GOAL#{goalId}       | STATE#{step, 8 digits}                      | –                            | –                                   |
 * | outbox      | GOAL#{goalId}       | OUTBOX#{messageId}                          | –                            | –                                   |
 * | fingerprint | GOAL#{goalId}       | FP#{sha256 of the fingerprint, 32 hex}      | –                            | –                                   |
 * | slack req.  | SLACK#{signature}   | SLACK_REQUEST                               | –                            | –                                   |
 * | cap. lane   | CAPACITY#{modelId}  | LANE#{n}                                    | –                            | –                                   |
 * | cap. rate   | CAPACITY#{modelId}  | RATE                                        | –                            | –                                   |
 * | streams     | STREAMS#open        | LEASES                                      | –                            | –                                   |
 * | tenant      | TENANT#{tenantId}   | LIMITS · SLOTS · STARTS · SPEND#{day}       | –                            | –                                   |
 *
 * The goal item keeps its record and event outbox in `state`; a step item its record in `record`, a
 * checkpoint item its checkpoint in `checkpoint`, an event item its event in `event`: each one
 * Binary attribute, the document deflated against a preset dictionary (encoding/document-codec.ts; items of
 * record schema 1 and 2 hold them plain, the goal's `state` brotli-compressed, and are still read).
 * Fingerprint items (`{fingerprint, step}`, the first step that saw it) are written once and never
 * changed, and so is a step state (`{format, step, state}`: where the goal stood after a counted
 * step, what a fork starts from; `state` encoded like the goal item's).
 *
 * Any item larger than the inline limit keeps its largest values in the payload bucket instead
 * (encoding/large-item-offload.ts): `offloaded` lists each moved value's path and S3 pointer, and reads put
 * the values back before anything parses the item. A moved value's object key starts with the
 * item's partition key, `#` read as `/` (`payloadKeyPrefix`): `GOAL/{goalId}/…`, `APPROVAL/{id}/…`.
 *
 * The partition-key prefixes (`PARTITION_PREFIXES`) are what IAM grants name: a function granted
 * `APPROVAL#*` items (`dynamodb:LeadingKeys`) reads payload objects under `APPROVAL/*` only.
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

/** The first part of every partition key, by item family; IAM conditions name items by these. */
export const PARTITION_PREFIXES = {
  /** A goal and everything of it: events, checkpoints, workspace, steps, outbox, fingerprints. */
  goal: "GOAL#",
  approval: "APPROVAL#",
  /** The Slack door's replay guard: one item per handled request signature. */
  slackRequest: "SLACK#",
  /** The capacity governor's lanes and rate, one partition per model (limits/dynamodb-capacity-store.ts). */
  capacity: "CAPACITY#",
  /** The open event streams' leases, one item (limits/dynamodb-stream-leases.ts). */
  streams: "STREAMS#",
  /**
   * A tenant's limits an operator set, its concurrent-goal slots, start pace and spend per day
   * (limits/dynamodb-tenant-store.ts). Never a goal's partition: the status index's `TENANT#…#GOALS`
   * keys are in `gsi1pk`, not here.
   */
  tenant: "TENANT#",
} as const;
export type PartitionPrefix = (typeof PARTITION_PREFIXES)[keyof typeof PARTITION_PREFIXES];

/**
 * Where the payload bucket keeps the moved values of items whose partition key starts with
 * `partitionKey`: the key with `#` read as `/` (`GOAL#abc` → `GOAL/abc`, `APPROVAL#` → `APPROVAL/`).
 */
export function payloadKeyPrefix(partitionKey: string): string {
  return partitionKey.split("#").join("/");
}
