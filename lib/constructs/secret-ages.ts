import { Duration, Stack } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import {
  DEFAULT_METRICS_NAMESPACE,
  GOAL_METRICS,
  METRIC_DIMENSIONS,
} from "../../lambdas/adapters/metrics/goal-metrics";
import { OWNED_SECRETS_ENV, type OwnedSecret } from "../../lambdas/core/operations/secret-age";
import { GOAL_LOOPS_SERVICE_NAME, GoalLoopFunction } from "./goal-loop-function";
import { acknowledgeWildcardResource } from "./nag-acknowledgments";

/** A secret the stack reads and its owner (`secrets.<key>` of the configuration). */
export interface OwnedStackSecret {
  /** `slackSigningSecret`, `slackBotToken`, `emailLinkKey` or `mcp:<server name>`. */
  readonly key: string;
  readonly secret: ISecret;
  /** Who rotates it: an e-mail address or a team. */
  readonly owner: string;
  /** How old its value may get, in days, before its alarm fires. */
  readonly rotateAfterDays: number;
}

export interface SecretAgesProps {
  /** The owned secrets to age; at least one. */
  readonly secrets: readonly OwnedStackSecret[];
  /**
   * CloudWatch namespace the ages are published in (the goal metrics').
   *
   * @default "GoalLoops"
   */
  readonly metricsNamespace?: string;
  /**
   * When the probe runs.
   *
   * @default - monthly, on the 1st at 09:00 UTC
   */
  readonly schedule?: Schedule;
}

/**
 * The monthly look at each owned secret's age (`secrets.<name>.rotateAfterDays`, docs/operations.md
 * "Rotating secrets"): a function on a schedule describes every secret the stack reads that has an
 * owner — its own Slack and e-mail secrets included, whose names only exist once deployed — and
 * publishes its age in days; one alarm per secret, whose description names the secret and its
 * owner, goes into ALARM when the age passes `rotateAfterDays`. Its role may call DescribeSecret on
 * exactly those secrets, which never returns a value.
 *
 * A datapoint comes once a month, so a missing one keeps the alarm's state (TreatMissingData
 * IGNORE): an overdue secret stays in ALARM until the probe sees it rotated. Run the probe by hand
 * after a rotation to clear it at once.
 */
export class SecretAges extends Construct {
  readonly probe: GoalLoopFunction;
  /** One alarm per secret, by its `secrets.<key>`. */
  readonly alarms: Readonly<Record<string, Alarm>>;
  /**
   * The probe failed (a secret it could not describe, a denied call): its ages are stale. Apart from
   * the per-function error alarms, whose 5-minute count a monthly run's three attempts never reach.
   */
  readonly probeFailedAlarm: Alarm;

  constructor(scope: Construct, id: string, props: SecretAgesProps) {
    super(scope, id);
    validateProps(props);
    const owned: OwnedSecret[] = props.secrets.map(({ key, secret, owner, rotateAfterDays }) => ({
      key,
      // A secret made by the stack has its full ARN; one imported by name is described by that name.
      secretId: secret.secretFullArn ?? secret.secretName,
      owner,
      rotateAfterDays,
    }));
    this.probe = new GoalLoopFunction(this, "Probe", {
      bundle: "secret-age-probe",
      description: "goal-loops SecretAgeProbe: publish how old each owned secret is, monthly",
      memorySize: 256,
      environment: { [OWNED_SECRETS_ENV]: Stack.of(this).toJsonString(owned) },
    });
    this.grantDescribe(props.secrets);
    new Rule(this, "Schedule", {
      description: "Runs goal-loops' SecretAgeProbe",
      schedule: props.schedule ?? Schedule.cron({ day: "1", hour: "9", minute: "0" }),
      targets: [new LambdaFunction(this.probe.function, { retryAttempts: 2 })],
    });

    const namespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    const alarms: Record<string, Alarm> = {};
    for (const { key, owner, rotateAfterDays } of props.secrets) {
      alarms[key] = new Alarm(this, `${alarmIdOf(key)}Alarm`, {
        alarmDescription:
          `The secret ${key} is older than its rotateAfterDays (${rotateAfterDays}): ${owner} should rotate it ` +
          `(docs/operations.md, "Rotating secrets"), then invoke ${this.probe.function.functionName} to clear this alarm.`,
        metric: new Metric({
          namespace,
          metricName: GOAL_METRICS.secretAgeDays,
          statistic: "Maximum",
          period: Duration.days(1),
          dimensionsMap: { service: GOAL_LOOPS_SERVICE_NAME, [METRIC_DIMENSIONS.secret]: key },
        }),
        threshold: rotateAfterDays,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.IGNORE,
      });
    }
    this.alarms = alarms;
    this.probeFailedAlarm = new Alarm(this, "ProbeFailedAlarm", {
      alarmDescription: `The secret-age probe ${this.probe.function.functionName} failed: its log names the secret it could not describe; the secrets' ages are not measured until it runs again.`,
      metric: this.probe.function.metricErrors({ period: Duration.days(1), statistic: "Sum" }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }

  /** DescribeSecret only, on each secret only: it reads dates, never a value. */
  private grantDescribe(secrets: readonly OwnedStackSecret[]): void {
    const resources = secrets.map(({ key, secret }) => {
      if (secret.secretFullArn !== undefined) return secret.secretFullArn;
      // Imported by name: Secrets Manager appends six random characters to the ARN.
      const arn = `${secret.secretArn}-??????`;
      acknowledgeWildcardResource(
        this.probe.role,
        arn,
        `Secrets Manager appends six random characters to a secret's ARN; the grant names the secret of ${key} and nothing else, for DescribeSecret only.`,
      );
      return arn;
    });
    this.probe.function.addToRolePolicy(
      new PolicyStatement({ actions: ["secretsmanager:DescribeSecret"], resources: [...new Set(resources)] }),
    );
  }
}

/** `mcp:tickets-v2` → `SecretAgeMcpTicketsV2`: a construct id per configured key. */
function alarmIdOf(key: string): string {
  return `SecretAge${key
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== "")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("")}`;
}

function validateProps(props: SecretAgesProps): void {
  if (props.secrets.length === 0) throw new Error("SecretAges: give at least one secret");
  const ids = new Map<string, string>();
  for (const { key, rotateAfterDays } of props.secrets) {
    if (!(Number.isInteger(rotateAfterDays) && rotateAfterDays >= 1)) {
      throw new Error(
        `SecretAges: ${key}'s rotateAfterDays must be a whole number from 1; got ${rotateAfterDays}`,
      );
    }
    const other = ids.get(alarmIdOf(key));
    if (other !== undefined) throw new Error(`SecretAges: ${key} and ${other} would share an alarm id`);
    ids.set(alarmIdOf(key), key);
  }
}
