import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { PayloadMissingError, type PayloadStore } from "../shared/payload-store";
import { GoalStoreBackendError, GoalStoreUnavailableError } from "../shared/store-errors";

/** S3 error names that a later attempt can get past. */
const RETRYABLE_ERROR_NAMES: ReadonlySet<string> = new Set([
  "SlowDown",
  "ThrottlingException",
  "RequestTimeout",
  "InternalError",
  "ServiceUnavailable",
]);

interface SdkErrorShape {
  readonly name?: unknown;
  readonly $fault?: unknown;
}

/**
 * The payload bucket through the AWS SDK. No explicit endpoint: the SDK honours
 * `AWS_ENDPOINT_URL_S3`, which is how the local runtime's S3 emulator is reached (an IP endpoint,
 * so the SDK addresses buckets by path).
 */
export class S3PayloadStore implements PayloadStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }),
      );
    } catch (error) {
      throw toPayloadError(error, "PutObject", key);
    }
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      const output = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!output.Body) throw new PayloadMissingError(`Payload ${key} came back without a body`);
      return await output.Body.transformToByteArray();
    } catch (error) {
      if (errorName(error) === "NoSuchKey") {
        throw new PayloadMissingError(
          `Payload ${key} is not in bucket ${this.bucket}: deleted, or expired by the bucket's lifecycle rule`,
          { cause: error },
        );
      }
      if (errorName(error) === "AccessDenied") {
        // Without s3:ListBucket (the functions are not given it) S3 answers a missing key so too.
        throw new GoalStoreBackendError(
          `S3 GetObject of payload ${key} was denied: the body is missing from bucket ${this.bucket} (S3 answers AccessDenied for a missing key to a caller that may not list the bucket), or this function may not read it`,
          { cause: error },
        );
      }
      throw toPayloadError(error, "GetObject", key);
    }
  }
}

/** The payload store of a handler: one S3 client, made when the first large item needs it. */
export function createS3PayloadStore(bucket: string): S3PayloadStore {
  return new S3PayloadStore(new S3Client({ region: process.env.AWS_REGION }), bucket);
}

function errorName(error: unknown): string {
  const name = typeof error === "object" && error !== null ? (error as SdkErrorShape).name : undefined;
  return typeof name === "string" ? name : "UnknownError";
}

/** Named like the table's errors, so a step's Retry treats a bucket outage as it treats DynamoDB's. */
function toPayloadError(error: unknown, operation: string, key: string): Error {
  if (error instanceof PayloadMissingError) return error;
  const name = errorName(error);
  const fault = typeof error === "object" && error !== null ? (error as SdkErrorShape).$fault : undefined;
  const retryable = RETRYABLE_ERROR_NAMES.has(name) || fault === "server" || fault === undefined;
  const message = `S3 ${operation} of payload ${key} failed: ${name}`;
  return retryable
    ? new GoalStoreUnavailableError(message, { cause: error })
    : new GoalStoreBackendError(message, { cause: error });
}
