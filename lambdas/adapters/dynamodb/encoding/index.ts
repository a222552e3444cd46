/**
 * encoding/: how a document becomes a goal-table item. A document's JSON deflated against the
 * stored format's dictionary (document-codec.ts, record schema 3 and later), an item's size as
 * DynamoDB counts it (item-size.ts), and large values moved to the payload store under a pointer
 * (large-item-offload.ts). Not here: which item holds which document (../dynamodb-items.ts).
 *
 * Other files import the files directly, never this index, so that each Lambda bundle carries only
 * what it uses.
 */
export * from "./document-codec";
export * from "./item-size";
export * from "./large-item-offload";
