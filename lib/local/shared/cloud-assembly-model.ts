/**
 * What the local runtime reads out of a synthesized cloud assembly (`cdk.out`): every value is
 * resolved to a local physical name, so nothing downstream sees a CloudFormation token.
 */

/** A JSON value, as templates, definitions and payloads are. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** The account, region and partition local ARNs are made of. */
export interface LocalEnvironment {
  readonly account: string;
  readonly region: string;
  readonly partition: string;
}

export const LOCAL_ENVIRONMENT: LocalEnvironment = {
  account: "000000000000",
  region: "us-east-1",
  partition: "aws",
};

export interface FunctionSpec {
  readonly stackName: string;
  readonly logicalId: string;
  /** `FunctionName` when the template sets one, else the logical id. */
  readonly functionName: string;
  readonly arn: string;
  /** Absolute path of the function's asset folder in cdk.out. */
  readonly assetDir: string;
  /** `file.export`, e.g. `index.handler`. */
  readonly handler: string;
  readonly runtime: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** `Environment.Variables` with every token resolved to a local name or ARN. */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * The version this is (a number, as the local stack keeps its assembly); absent for `$LATEST`,
   * the function as the newest synth has it.
   */
  readonly version?: string;
}

export interface StateMachineSpec {
  readonly stackName: string;
  readonly logicalId: string;
  /** `StateMachineName` when the template sets one, else the logical id. */
  readonly name: string;
  readonly arn: string;
  readonly type: "STANDARD" | "EXPRESS";
  /** The ASL definition with tokens and `DefinitionSubstitutions` resolved. */
  readonly definition: JsonObject;
  /**
   * The version of it the template publishes (AWS::StepFunctions::StateMachineVersion), numbered as
   * the local stack keeps the assembly, and the aliases (`…:live`) the template points at it.
   */
  readonly published?: {
    readonly arn: string;
    readonly description: string;
    readonly aliases: readonly string[];
  };
}

/** A published version of a state machine: its definition as the deploy that published it had it. */
export interface StateMachineVersion {
  /** `…:stateMachine:<name>:<n>`. */
  readonly arn: string;
  /** What the deploy described it with (`goal-loops version … record schema …`). */
  readonly description: string;
  readonly spec: StateMachineSpec;
  readonly creationDate: Date;
}

export interface KeySchemaElement {
  readonly AttributeName: string;
  readonly KeyType: "HASH" | "RANGE";
}

export interface SecondaryIndexSpec {
  readonly IndexName: string;
  readonly KeySchema: readonly KeySchemaElement[];
  readonly Projection: {
    readonly ProjectionType?: "ALL" | "KEYS_ONLY" | "INCLUDE";
    readonly NonKeyAttributes?: readonly string[];
  };
}

export interface TableSpec {
  readonly stackName: string;
  readonly logicalId: string;
  /** `TableName` when the template sets one, else the logical id. */
  readonly tableName: string;
  readonly arn: string;
  readonly keySchema: readonly KeySchemaElement[];
  readonly attributeDefinitions: readonly {
    readonly AttributeName: string;
    readonly AttributeType: "S" | "N" | "B";
  }[];
  readonly globalSecondaryIndexes: readonly SecondaryIndexSpec[];
  readonly localSecondaryIndexes: readonly SecondaryIndexSpec[];
  readonly ttlAttribute?: string;
}

export interface EventBusSpec {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
}

export interface EventTargetSpec {
  readonly id: string;
  readonly arn: string;
  /** What the ARN points at; other targets (SQS, SNS, API destinations) are recorded as failed. */
  readonly kind: "lambda" | "state-machine" | "unsupported";
  /** Constant JSON text sent instead of the event. */
  readonly input?: string;
  /** JSONPath (`$.detail`) of the part of the event to send. */
  readonly inputPath?: string;
  readonly inputTransformer?: {
    readonly inputPathsMap: Readonly<Record<string, string>>;
    readonly inputTemplate: string;
  };
}

export interface EventRuleSpec {
  readonly stackName: string;
  readonly logicalId: string;
  readonly name: string;
  /** Bus name (`default` when the rule names none). */
  readonly eventBusName: string;
  readonly eventPattern: JsonObject;
  readonly enabled: boolean;
  readonly targets: readonly EventTargetSpec[];
}

export interface ApiRouteSpec {
  readonly apiLogicalId: string;
  /** Upper-case HTTP method, or `ANY`. */
  readonly method: string;
  /** API Gateway resource path, e.g. `/goals/{goalId}` or `/{proxy+}`. */
  readonly resourcePath: string;
  /** The Lambda function of the method's AWS_PROXY integration. */
  readonly functionArn: string;
  /**
   * Response streaming (`responseTransferMode: STREAM`): API Gateway invokes the function with
   * InvokeWithResponseStream and passes its bytes on as they come.
   */
  readonly streaming: boolean;
}

/** An S3 bucket of the template (the goal store's payload bucket), by its local name. */
export interface BucketSpec {
  readonly stackName: string;
  readonly logicalId: string;
  /** `BucketName` when the template sets one, else the logical id in lowercase. */
  readonly bucketName: string;
}

/** A `GoalLoops` construct of the app, found by its construct metadata. */
export interface GoalLoopsSpec {
  readonly stackName: string;
  /** Its construct path, e.g. `MyStack/Loops`. */
  readonly path: string;
  /** The goal-loops version that built it. */
  readonly version: string;
}

export interface CloudAssemblyModel {
  readonly outDir: string;
  readonly stackNames: readonly string[];
  /** The GoalLoops constructs of the stacks read (none in an app that only resembles one). */
  readonly goalLoops: readonly GoalLoopsSpec[];
  readonly functions: readonly FunctionSpec[];
  readonly stateMachines: readonly StateMachineSpec[];
  readonly tables: readonly TableSpec[];
  readonly buckets: readonly BucketSpec[];
  readonly eventBuses: readonly EventBusSpec[];
  readonly eventRules: readonly EventRuleSpec[];
  readonly apiRoutes: readonly ApiRouteSpec[];
}
