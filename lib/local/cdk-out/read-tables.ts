import * as z from "zod";
import type { TableSpec } from "../shared/cloud-assembly-model";
import { CloudAssemblyError } from "../shared/errors";
import type { StackTemplate } from "./stack-template";

const KeySchemaSchema = z
  .array(z.object({ AttributeName: z.string(), KeyType: z.enum(["HASH", "RANGE"]) }))
  .min(1);

const IndexSchema = z.looseObject({
  IndexName: z.string(),
  KeySchema: KeySchemaSchema,
  Projection: z
    .looseObject({
      ProjectionType: z.enum(["ALL", "KEYS_ONLY", "INCLUDE"]).optional(),
      NonKeyAttributes: z.array(z.string()).optional(),
    })
    .default({ ProjectionType: "ALL" }),
});

const TablePropertiesSchema = z.looseObject({
  KeySchema: KeySchemaSchema,
  AttributeDefinitions: z.array(
    z.object({ AttributeName: z.string(), AttributeType: z.enum(["S", "N", "B"]) }),
  ),
  GlobalSecondaryIndexes: z.array(IndexSchema).default([]),
  LocalSecondaryIndexes: z.array(IndexSchema).default([]),
  TimeToLiveSpecification: z
    .looseObject({ AttributeName: z.string().optional(), Enabled: z.boolean() })
    .optional(),
});

/** DynamoDB tables with what the local runtime needs to create them: keys, indexes and TTL. */
export function readTables(stack: StackTemplate): TableSpec[] {
  return stack
    .resourcesOfType("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable")
    .map(([logicalId, resource]) => {
      // Only the properties read here are resolved: the rest (encryption, backups) means nothing locally.
      const {
        KeySchema,
        AttributeDefinitions,
        GlobalSecondaryIndexes,
        LocalSecondaryIndexes,
        TimeToLiveSpecification,
      } = resource.Properties ?? {};
      const resolved = stack.resolve(
        {
          KeySchema,
          AttributeDefinitions,
          GlobalSecondaryIndexes,
          LocalSecondaryIndexes,
          TimeToLiveSpecification,
        },
        `${logicalId} Properties`,
      );
      const parsed = TablePropertiesSchema.safeParse(resolved);
      if (!parsed.success) {
        throw new CloudAssemblyError(
          `${stack.stackName}/${logicalId}: unexpected table properties: ${parsed.error.message}`,
        );
      }
      const props = parsed.data;
      const physical = stack.physicalIds.get(logicalId);
      const ttl = props.TimeToLiveSpecification;
      return {
        stackName: stack.stackName,
        logicalId,
        tableName: physical?.ref ?? logicalId,
        arn: physical?.attributes.Arn ?? "",
        keySchema: props.KeySchema,
        attributeDefinitions: props.AttributeDefinitions,
        globalSecondaryIndexes: props.GlobalSecondaryIndexes,
        localSecondaryIndexes: props.LocalSecondaryIndexes,
        ...(ttl?.Enabled && ttl.AttributeName ? { ttlAttribute: ttl.AttributeName } : {}),
      };
    });
}
