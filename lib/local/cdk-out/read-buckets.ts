import type { BucketSpec } from "../shared/cloud-assembly-model";
import type { StackTemplate } from "./stack-template";

/** S3 buckets, which the local runtime creates in its S3 emulator under their local names. */
export function readBuckets(stack: StackTemplate): BucketSpec[] {
  return stack.resourcesOfType("AWS::S3::Bucket").map(([logicalId]) => ({
    stackName: stack.stackName,
    logicalId,
    bucketName: stack.physicalIds.get(logicalId)?.ref ?? logicalId.toLowerCase(),
  }));
}
