import { type JsonValue, LOCAL_ENVIRONMENT } from "../shared/cloud-assembly-model";
import { CloudAssemblyError } from "../shared/errors";
import { isJsonObject, isRecord } from "../shared/json";

/** What `Ref` and `Fn::GetAtt` return for one resource, locally. */
export interface PhysicalId {
  readonly type: string;
  readonly ref: string;
  readonly attributes: Readonly<Record<string, string>>;
}

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}

export interface IntrinsicContext {
  readonly stackName: string;
  readonly physicalIds: ReadonlyMap<string, PhysicalId>;
  readonly parameters: Readonly<Record<string, string>>;
}

const { account, region, partition } = LOCAL_ENVIRONMENT;

const arn = (service: string, resource: string, withRegion = true, withAccount = true) =>
  `arn:${partition}:${service}:${withRegion ? region : ""}:${withAccount ? account : ""}:${resource}`;

const nameOr = (value: unknown, fallback: string): string => (typeof value === "string" ? value : fallback);

/**
 * Local physical names: the name a template sets, else the logical id (CloudFormation would
 * generate one). ARNs use a fixed local account and region; Ref and GetAtt return what AWS
 * documents for each type.
 */
export function physicalIdOf(logicalId: string, resource: TemplateResource): PhysicalId {
  const props = resource.Properties ?? {};
  const type = resource.Type;
  switch (type) {
    case "AWS::Lambda::Function": {
      const name = nameOr(props.FunctionName, logicalId);
      return { type, ref: name, attributes: { Arn: arn("lambda", `function:${name}`) } };
    }
    case "AWS::DynamoDB::Table":
    case "AWS::DynamoDB::GlobalTable": {
      const name = nameOr(props.TableName, logicalId);
      const tableArn = arn("dynamodb", `table/${name}`);
      return { type, ref: name, attributes: { Arn: tableArn, StreamArn: `${tableArn}/stream/local` } };
    }
    case "AWS::StepFunctions::StateMachine": {
      const name = nameOr(props.StateMachineName, logicalId);
      const machineArn = arn("states", `stateMachine:${name}`);
      return { type, ref: machineArn, attributes: { Arn: machineArn, Name: name } };
    }
    case "AWS::Events::EventBus": {
      const name = nameOr(props.Name, logicalId);
      return { type, ref: name, attributes: { Arn: arn("events", `event-bus/${name}`), Name: name } };
    }
    case "AWS::Events::Rule": {
      const name = nameOr(props.Name, logicalId);
      return { type, ref: name, attributes: { Arn: arn("events", `rule/${name}`) } };
    }
    case "AWS::IAM::Role": {
      const name = nameOr(props.RoleName, logicalId);
      return { type, ref: name, attributes: { Arn: arn("iam", `role/${name}`, false), RoleId: name } };
    }
    case "AWS::SQS::Queue": {
      const name = nameOr(props.QueueName, logicalId);
      const url = `https://sqs.${region}.amazonaws.com/${account}/${name}`;
      return { type, ref: url, attributes: { Arn: arn("sqs", name), QueueName: name, QueueUrl: url } };
    }
    case "AWS::SNS::Topic": {
      const name = nameOr(props.TopicName, logicalId);
      const topicArn = arn("sns", name);
      return { type, ref: topicArn, attributes: { TopicArn: topicArn, TopicName: name } };
    }
    case "AWS::Scheduler::ScheduleGroup": {
      const name = nameOr(props.Name, logicalId);
      return { type, ref: name, attributes: { Arn: arn("scheduler", `schedule-group/${name}`) } };
    }
    case "AWS::S3::Bucket": {
      // CloudFormation generates a lowercase name; S3 refuses capitals and names over 63 characters.
      const name = nameOr(props.BucketName, logicalId.toLowerCase().slice(0, 63));
      return {
        type,
        ref: name,
        attributes: { Arn: `arn:${partition}:s3:::${name}`, DomainName: `${name}.s3.amazonaws.com` },
      };
    }
    case "AWS::KMS::Key":
      return { type, ref: logicalId, attributes: { Arn: arn("kms", `key/${logicalId}`), KeyId: logicalId } };
    case "AWS::Logs::LogGroup": {
      const name = nameOr(props.LogGroupName, logicalId);
      return { type, ref: name, attributes: { Arn: arn("logs", `log-group:${name}:*`) } };
    }
    case "AWS::ApiGateway::RestApi":
      return { type, ref: logicalId, attributes: { RootResourceId: `${logicalId}/`, RestApiId: logicalId } };
    case "AWS::ApiGateway::Resource":
      return { type, ref: logicalId, attributes: { ResourceId: logicalId } };
    default:
      return { type, ref: logicalId, attributes: {} };
  }
}

/** Resources whose ARN is another's with a qualifier; their physical ids come after the others'. */
export const QUALIFIED_TYPES: readonly string[] = [
  "AWS::Lambda::Version",
  "AWS::Lambda::Alias",
  "AWS::StepFunctions::StateMachineVersion",
  "AWS::StepFunctions::StateMachineAlias",
];

const UNQUALIFIED_STATE_MACHINE = /^(arn:[^:]+:states:[^:]*:[^:]*:stateMachine:[^:]+)(?::[^:]+)?$/;

/**
 * A version's or an alias's physical id: its function's or state machine's ARN with the version
 * number the local stack keeps this assembly under (`version`, see kept-versions.ts), or the
 * alias's name. `resolve` resolves a property (the target's Ref) against the other resources.
 */
export function qualifiedPhysicalIdOf(
  resource: TemplateResource,
  version: number,
  resolve: (value: unknown, property: string) => JsonValue,
): PhysicalId {
  const props = resource.Properties ?? {};
  const type = resource.Type;
  const functionArn = () => {
    const target = String(resolve(props.FunctionName, "FunctionName"));
    return target.startsWith("arn:") ? target : arn("lambda", `function:${target}`);
  };
  switch (type) {
    case "AWS::Lambda::Version": {
      const versionArn = `${functionArn()}:${version}`;
      return { type, ref: versionArn, attributes: { Version: String(version), FunctionArn: versionArn } };
    }
    case "AWS::Lambda::Alias": {
      const aliasArn = `${functionArn()}:${nameOr(props.Name, "live")}`;
      return { type, ref: aliasArn, attributes: { AliasArn: aliasArn } };
    }
    case "AWS::StepFunctions::StateMachineVersion": {
      const versionArn = `${String(resolve(props.StateMachineArn, "StateMachineArn"))}:${version}`;
      return { type, ref: versionArn, attributes: { Arn: versionArn } };
    }
    default: {
      // A state machine alias names its state machine only through the versions it routes to.
      const routes = resolve(
        props.RoutingConfiguration ?? props.DeploymentPreference,
        "RoutingConfiguration",
      );
      const first = Array.isArray(routes) && isJsonObject(routes[0]) ? routes[0].StateMachineVersionArn : "";
      const machine = UNQUALIFIED_STATE_MACHINE.exec(String(first))?.[1] ?? "";
      const aliasArn = `${machine}:${nameOr(props.Name, "live")}`;
      return { type, ref: aliasArn, attributes: { Arn: aliasArn } };
    }
  }
}

function pseudoParameters(stackName: string): Record<string, string> {
  return {
    "AWS::AccountId": account,
    "AWS::Region": region,
    "AWS::Partition": partition,
    "AWS::URLSuffix": "amazonaws.com",
    "AWS::StackName": stackName,
    "AWS::StackId": arn("cloudformation", `stack/${stackName}/local`),
  };
}

/**
 * Evaluates the CloudFormation intrinsics CDK emits (Ref, Fn::GetAtt, Fn::Join, Fn::Sub,
 * Fn::Select, Fn::Split) against local physical names. `where` names the resource and property
 * for the error raised on anything else (Fn::If, Fn::ImportValue, an unknown attribute).
 */
export function resolveIntrinsics(value: unknown, context: IntrinsicContext, where: string): JsonValue {
  const pseudo = pseudoParameters(context.stackName);
  const fail = (what: string): never => {
    throw new CloudAssemblyError(`${where}: ${what}`);
  };

  const ref = (name: unknown): string => {
    if (typeof name !== "string") return fail(`Ref needs a name, got ${JSON.stringify(name)}`);
    if (name === "AWS::NoValue")
      return fail("Ref AWS::NoValue (conditional properties) is not supported locally");
    const value = pseudo[name] ?? context.parameters[name] ?? context.physicalIds.get(name)?.ref;
    return (
      value ?? fail(`Ref to '${name}', which is no resource, parameter or pseudo parameter of the stack`)
    );
  };

  const getAtt = (logicalId: string, attribute: string): string => {
    const physical = context.physicalIds.get(logicalId);
    if (physical === undefined) return fail(`Fn::GetAtt ${logicalId}.${attribute}: no such resource`);
    return (
      physical.attributes[attribute] ??
      fail(`Fn::GetAtt ${logicalId}.${attribute} (${physical.type}) has no local value`)
    );
  };

  const asString = (v: JsonValue, what: string): string =>
    typeof v === "string" || typeof v === "number" ? String(v) : fail(`${what} must resolve to a string`);

  const sub = (template: string, variables: Record<string, JsonValue>): string =>
    template.replace(/\$\{([^}]*)\}/g, (_match, name: string) => {
      if (name.startsWith("!")) return `\${${name.slice(1)}}`;
      const variable = variables[name];
      if (variable !== undefined) return asString(variable, `Fn::Sub variable ${name}`);
      const dot = name.indexOf(".");
      return dot > 0 ? getAtt(name.slice(0, dot), name.slice(dot + 1)) : ref(name);
    });

  const evaluate = (node: unknown): JsonValue => {
    if (Array.isArray(node)) return node.map(evaluate);
    if (node === null || typeof node !== "object") {
      if (
        typeof node === "string" ||
        typeof node === "number" ||
        typeof node === "boolean" ||
        node === null
      ) {
        return node;
      }
      return fail(`unexpected value ${String(node)}`);
    }
    if (!isRecord(node)) return fail("unexpected value");
    const keys = Object.keys(node);
    const [key] = keys;
    if (
      keys.length === 1 &&
      key !== undefined &&
      (key === "Ref" || key.startsWith("Fn::") || key === "Condition")
    ) {
      const argument = node[key];
      switch (key) {
        case "Ref":
          return ref(argument);
        case "Fn::GetAtt": {
          const [logicalId, attribute] = Array.isArray(argument)
            ? argument.map(String)
            : String(argument).split(/\.(.*)/s);
          if (logicalId === undefined || attribute === undefined)
            return fail("Fn::GetAtt needs [resource, attribute]");
          return getAtt(logicalId, attribute);
        }
        case "Fn::Join": {
          const [separator, parts] = Array.isArray(argument) ? argument : [];
          const list = evaluate(parts);
          if (typeof separator !== "string" || !Array.isArray(list))
            return fail("Fn::Join needs [separator, list]");
          return list.map((part) => asString(part, "Fn::Join part")).join(separator);
        }
        case "Fn::Sub": {
          if (typeof argument === "string") return sub(argument, {});
          const [template, variables] = Array.isArray(argument) ? argument : [];
          const resolved = evaluate(variables ?? {});
          if (typeof template !== "string" || !isJsonObject(resolved)) {
            return fail("Fn::Sub needs a string or [string, map]");
          }
          return sub(template, resolved);
        }
        case "Fn::Select": {
          const resolved = evaluate(argument);
          const [index, list] = Array.isArray(resolved) ? resolved : [];
          const item = Array.isArray(list) ? list[Number(index)] : undefined;
          return item ?? fail(`Fn::Select index ${String(index)} is out of range`);
        }
        case "Fn::Split": {
          const resolved = evaluate(argument);
          const [separator, text] = Array.isArray(resolved) ? resolved : [];
          if (typeof separator !== "string" || typeof text !== "string")
            return fail("Fn::Split needs [separator, string]");
          return text.split(separator);
        }
        default:
          return fail(`the intrinsic ${key} is not supported by the local runtime`);
      }
    }
    // An absent property (undefined) stays absent, as in JSON.
    return Object.fromEntries(
      Object.entries(node).flatMap(([k, v]) => (v === undefined ? [] : [[k, evaluate(v)]])),
    );
  };

  return evaluate(value);
}
