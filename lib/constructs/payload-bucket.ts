import { Duration, RemovalPolicy } from "aws-cdk-lib";
import type { Grant, IGrantable } from "aws-cdk-lib/aws-iam";
import type { IKey } from "aws-cdk-lib/aws-kms";
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type BucketGrants,
  type IBucket,
  ObjectOwnership,
} from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import type * as z from "zod";
import { PAYLOAD_RETENTION_GRACE_DAYS } from "../../lambdas/adapters/shared/payload-settings";
import { type PayloadsConfig, PayloadsConfigSchema } from "../config/goal-loops-config";
import { parseSettings } from "../config/parse-settings";
import { acknowledgeNag } from "./nag-acknowledgments";

/**
 * The goal store's payload settings (the configuration's `payloads`): every field optional, the
 * defaults suit a deployment that has no reason to change them.
 */
export type PayloadSettings = PayloadsConfig;

/** The settings with every default applied. */
export type ResolvedPayloadSettings = z.output<typeof PayloadsConfigSchema>;

/** The settings' schema, defaults applied (the configuration file's `payloads`). */
export const PayloadSettingsSchema = PayloadsConfigSchema;

/**
 * `value` as resolved settings, or an error naming each bad field by its path under `path`
 * (`payloads.inlineMaxBytes`), what it expected and what it got. `where` names the construct the
 * value was given to.
 */
export function parsePayloadSettings(
  value: unknown,
  where: string,
  path = "payloads",
): ResolvedPayloadSettings {
  return parseSettings(PayloadsConfigSchema, value, where, path);
}

export interface PayloadBucketProps extends PayloadSettings {
  /** The goal table's key: the bucket's objects are as sensitive as the items they come from. */
  readonly encryptionKey: IKey;

  /**
   * What happens to the bucket when it leaves the stack: the goal table's policy. The bucket is
   * never emptied by the stack (no auto-delete), so `RemovalPolicy.DESTROY` removes it only when
   * it is empty, and a stack delete otherwise fails on it rather than destroy goal data.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * How many days the goals' items live after they were last written (`data.goalRetentionDays`):
   * objects expire PAYLOAD_RETENTION_GRACE_DAYS later, so none goes while an item points at it
   * (the goal store puts a body again when an item that points at it is written, see
   * encoding/large-item-offload.ts).
   *
   * @default - objects never expire, as goal items never do
   */
  readonly goalRetentionDays?: number;
}

/**
 * The goal store's payload bucket (issue #16): workspace file contents and the large attributes
 * of DynamoDB items over `inlineMaxBytes`, under content-addressed keys made of the item's
 * partition and the body's SHA-256 (`GOAL/<goalId>/<sha256>`, `APPROVAL/<approvalId>/<sha256>`).
 * Functions only put, get and head objects; `GoalTable`'s grants include this bucket's.
 *
 * Secure by default: SSE-KMS with the goal table's own key and an S3 Bucket Key (fewer KMS calls),
 * all public access blocked, ACLs off (bucket owner enforced), TLS 1.2 or later required by the
 * bucket policy, and the table's removal policy. Not versioned: a key names its content, so an
 * object is never overwritten with other bytes and there is no older version to keep. A lifecycle
 * rule aborts multipart uploads left after a day, and with `goalRetentionDays` expires objects
 * PAYLOAD_RETENTION_GRACE_DAYS after the items that point at them.
 */
export class PayloadBucket extends Construct {
  /** The S3 bucket. */
  readonly bucket: IBucket;
  /** The settings in effect, defaults applied. */
  readonly settings: ResolvedPayloadSettings;
  /**
   * What a function of the goal store reads: `PAYLOAD_BUCKET_NAME`, `PAYLOAD_INLINE_MAX_BYTES`,
   * `PAYLOAD_MAX_BYTES`.
   */
  readonly environment: Readonly<Record<string, string>>;
  private readonly grants: BucketGrants;

  constructor(scope: Construct, id: string, props: PayloadBucketProps) {
    super(scope, id);
    const { encryptionKey, removalPolicy, goalRetentionDays, ...settings } = props;
    this.settings = parsePayloadSettings(settings, "PayloadBucket", "");

    const bucket = new Bucket(this, "Bucket", {
      encryption: BucketEncryption.KMS,
      encryptionKey,
      bucketKeyEnabled: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      // Keys are content-addressed and objects immutable: a put of an existing key writes the same
      // bytes, so versions would only keep copies of what is already there.
      versioned: false,
      lifecycleRules: [
        {
          id: "ExpirePayloads",
          // With the goals' retention, a body goes PAYLOAD_RETENTION_GRACE_DAYS after the items
          // that point at it; without one, bodies stay as long as their goals do.
          ...(goalRetentionDays === undefined
            ? {}
            : { expiration: Duration.days(goalRetentionDays + PAYLOAD_RETENTION_GRACE_DAYS) }),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy: removalPolicy ?? RemovalPolicy.RETAIN,
    });
    // Server access logs (AwsSolutions-S1) are left off, on purpose:
    // - S3 delivers them best effort, to a target bucket that must use SSE-S3 (log delivery cannot
    //   use a KMS key): a second bucket, with weaker encryption than this one, that needs its own
    //   S1 waiver in turn;
    // - every request here comes from the goal store's own function roles (the bucket policy and
    //   public access block keep everyone else out), and every change they make is recorded in the
    //   goal's event log in DynamoDB;
    // - object-level audit belongs to CloudTrail S3 data events, which are complete, can be
    //   KMS-encrypted and are usually set up once for the account or organization: enable them for
    //   this bucket where an audit trail per object is required.
    acknowledgeNag(
      bucket,
      "AwsSolutions-S1",
      "No server access logs: only the goal store's function roles can reach this bucket (public access blocked, TLS " +
        "required), the goal's event log records what they do, and S3 log delivery is best effort into an SSE-S3-only " +
        "bucket that would hold goal ids under weaker encryption than this KMS-encrypted one. Object-level audit is " +
        "CloudTrail S3 data events, an account or organization trail decision left to the deployer.",
    );
    this.bucket = bucket;
    this.grants = bucket.grants;
    this.environment = {
      PAYLOAD_BUCKET_NAME: bucket.bucketName,
      PAYLOAD_INLINE_MAX_BYTES: String(this.settings.inlineMaxBytes),
      PAYLOAD_MAX_BYTES: String(this.settings.maxBytes),
    };
  }

  /**
   * Lets the grantee put and get (and head) objects, with the key use that needs: a data key to
   * write an object, decryption to read one (and to finish a multipart upload). No delete, no list.
   *
   * On every object (`<bucket>/*`), not a key prefix: the goal store's functions may read and write
   * any goal's items (tenants are told apart by the code, not by IAM), and the keys follow the item
   * partitions, which are more than `GOAL/`. Without `s3:ListBucket`, S3 answers a get or head of a
   * missing key with 403 AccessDenied, not 404.
   */
  grantReadWrite(grantee: IGrantable): Grant {
    return this.grants.actionsOnObjectKeys(
      grantee,
      "*",
      "s3:GetObject",
      "s3:PutObject",
      "kms:Decrypt",
      "kms:GenerateDataKey",
    );
  }

  /** Lets the grantee get (and head) objects and decrypt them. */
  grantRead(grantee: IGrantable): Grant {
    return this.grants.actionsOnObjectKeys(grantee, "*", "s3:GetObject", "kms:Decrypt");
  }
}
