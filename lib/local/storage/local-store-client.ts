import { S3Client } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { withLargeItemOffload } from "../../../lambdas/adapters/dynamodb/encoding/large-item-offload";
import { S3PayloadStore } from "../../../lambdas/adapters/s3/s3-payload-store";
import {
  type PayloadEnvironment,
  payloadSettingsFromEnv,
} from "../../../lambdas/adapters/shared/payload-settings";
import type { CloudAssemblyModel } from "../shared/cloud-assembly-model";
import { LOCAL_ENVIRONMENT } from "../shared/cloud-assembly-model";
import { localDynamoClient } from "./dynamo";

/** Where the local runtime's own reads and writes of the goal table go (re-attach, outbox listing). */
export interface LocalStoreEndpoints {
  readonly dynamodb: string;
  /** The S3 emulator holding the payload bucket; absent when the stack has none. */
  readonly s3?: string;
}

/**
 * The payload settings the stack gives its functions (PAYLOAD_BUCKET_NAME …, from the template), so
 * the runtime itself reads and writes large items exactly as the functions do.
 */
export function payloadSettingsOf(model: CloudAssemblyModel): PayloadEnvironment | undefined {
  const withBucket = model.functions.find((fn) => fn.environment.PAYLOAD_BUCKET_NAME !== undefined);
  return withBucket && payloadSettingsFromEnv(withBucket.environment);
}

/**
 * A document client on the local goal table that follows large items into the local payload
 * bucket, as `createDocumentClient` does inside a function.
 */
export function localStoreClient(
  endpoints: LocalStoreEndpoints,
  payloads?: PayloadEnvironment,
): DynamoDBDocumentClient {
  const client = DynamoDBDocumentClient.from(localDynamoClient(endpoints.dynamodb), {
    marshallOptions: { removeUndefinedValues: true },
  });
  if (payloads === undefined || endpoints.s3 === undefined) return client;
  const s3 = new S3Client({
    endpoint: endpoints.s3,
    region: LOCAL_ENVIRONMENT.region,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    forcePathStyle: true,
  });
  return withLargeItemOffload(client, {
    payloads: new S3PayloadStore(s3, payloads.bucketName),
    inlineMaxBytes: payloads.inlineMaxBytes,
  });
}
