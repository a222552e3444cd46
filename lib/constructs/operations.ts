import { Arn, ArnFormat, Aws, Duration, RemovalPolicy, Stack, Token } from "aws-cdk-lib";
import type { RestApi } from "aws-cdk-lib/aws-apigateway";
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type IMetric,
  MathExpression,
  Metric,
  SingleValueWidget,
  TextWidget,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { PolicyStatement, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { GOAL_METRICS, METRIC_DIMENSIONS } from "../../lambdas/adapters/metrics/goal-metrics";
import { CAPACITY_WAIT_REASONS } from "../../lambdas/core/goal/goal-activity";
import { PATTERNS } from "../../lambdas/core/goal/goal-spec";
import { OPERATIONS_DEFAULTS } from "../config/goal-loops-config";
import { GOAL_LOOPS_SERVICE_NAME, GoalLoopFunction } from "./goal-loop-function";
import type { GoalTable } from "./goal-table";
import { acknowledgeWildcardResource } from "./nag-acknowledgments";

/** How often the probe looks at the pending approvals, and so the oldest-approval alarm's period. */
const PROBE_INTERVAL = Duration.minutes(5);
const FIVE_MINUTES = Duration.minutes(5);

export interface OperationsProps {
  /** The goal store: the probe reads its pending approvals. */
  readonly goalTable: GoalTable;
  /** The loops' state machines, by pattern: failed and timed-out executions alarm. */
  readonly stateMachines: Readonly<Record<string, StateMachine>>;
  /** Every function to watch (errors, throttles) and to give the metrics namespace. */
  readonly functions: readonly GoalLoopFunction[];
  /** The goals API: its 5XX answers alarm. */
  readonly restApi: RestApi;
  /** Alarms made elsewhere (the event bus's dead-letter queue) that notify through this topic too. */
  readonly otherAlarms?: readonly Alarm[];

  /**
   * Where alarms are e-mailed (an SNS e-mail subscription the address must confirm).
   *
   * @default - no subscription: subscribe to `alarmTopic` yourself
   */
  readonly alarmEmail?: string;
  /**
   * Model spend of all goals in one hour (USD) above which the spend alarm fires.
   *
   * @default 10
   */
  readonly spendPerHourUsd?: number;
  /**
   * How long the oldest pending approval may wait before its alarm fires.
   *
   * @default Duration.hours(4)
   */
  readonly pendingApprovalAlarmAfter?: Duration;
  /**
   * Errors of one function in 5 minutes that fire its alarm.
   *
   * @default 5
   */
  readonly lambdaErrorsPerFiveMinutes?: number;
  /**
   * 5XX answers of the API in 5 minutes that fire its alarm.
   *
   * @default 1
   */
  readonly api5xxPerFiveMinutes?: number;
  /**
   * Tenants besides the stack's own account whose pending approvals the probe reads.
   *
   * @default []
   */
  readonly approvalTenantIds?: readonly string[];
  /**
   * CloudWatch namespace of the goal metrics.
   *
   * @default "GoalLoops"
   */
  readonly metricsNamespace?: string;
  /**
   * Name of the dashboard.
   *
   * @default - `${stackName}-goal-loops`
   */
  readonly dashboardName?: string;
}

/**
 * What tells a human that goal-loops broke or costs too much (docs/operations.md): an SNS topic
 * (KMS-encrypted, TLS only, e-mailed when an address is configured) that every alarm notifies —
 * failed or timed-out executions, Lambda errors and throttles, API 5XX, the dead-letter queue, the
 * oldest pending approval and the spend per hour — and one CloudWatch dashboard of the goal
 * metrics (goal-metrics.ts) beside the services' own.
 *
 * The oldest pending approval is measured by a small function on a schedule (see
 * `measurePendingApprovals`): an approval nobody answers emits nothing by itself.
 */
export class Operations extends Construct {
  /** Every alarm notifies this topic. */
  readonly alarmTopic: Topic;
  /** The alarms this construct made, by name (`ReactExecutionsFailed`, `SpendPerHour` …). */
  readonly alarms: Readonly<Record<string, Alarm>>;
  readonly dashboard: Dashboard;
  /** Publishes the age of the oldest pending approval every 5 minutes. */
  readonly pendingApprovalsProbe: GoalLoopFunction;
  readonly metricsNamespace: string;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    validateProps(props);
    this.metricsNamespace = props.metricsNamespace ?? OPERATIONS_DEFAULTS.metricsNamespace;

    this.alarmTopic = this.createTopic(props.alarmEmail);
    this.pendingApprovalsProbe = this.createProbe(props);
    const functions = [...props.functions, this.pendingApprovalsProbe];
    for (const fn of functions) fn.addEnvironment({ POWERTOOLS_METRICS_NAMESPACE: this.metricsNamespace });

    const alarms: Record<string, Alarm> = {};
    const add = (name: string, alarm: Alarm) => {
      alarms[name] = alarm;
      alarm.addAlarmAction(new SnsAction(this.alarmTopic));
    };
    for (const [pattern, stateMachine] of Object.entries(props.stateMachines)) {
      const name = pascal(pattern);
      add(
        `${name}ExecutionsFailed`,
        atLeast(this, `${name}ExecutionsFailed`, stateMachine.metricFailed({ period: FIVE_MINUTES }), 1, {
          description: `A ${pattern} goal's run failed (the goal is 'failed': retry it once the cause is fixed).`,
        }),
      );
      add(
        `${name}ExecutionsTimedOut`,
        atLeast(this, `${name}ExecutionsTimedOut`, stateMachine.metricTimedOut({ period: FIVE_MINUTES }), 1, {
          description: `A ${pattern} run timed out.`,
        }),
      );
    }
    for (const fn of functions) {
      const name = functionName(fn);
      add(
        `${name}Errors`,
        atLeast(
          this,
          `${name}Errors`,
          fn.function.metricErrors({ period: FIVE_MINUTES, statistic: "Sum" }),
          props.lambdaErrorsPerFiveMinutes ?? OPERATIONS_DEFAULTS.lambdaErrorsPerFiveMinutes,
          { description: `${name} failed repeatedly in 5 minutes (retried errors count too).` },
        ),
      );
      add(
        `${name}Throttles`,
        atLeast(
          this,
          `${name}Throttles`,
          fn.function.metricThrottles({ period: FIVE_MINUTES, statistic: "Sum" }),
          1,
          {
            description: `Lambda throttled ${name}: the account's or the function's concurrency ran out.`,
          },
        ),
      );
    }
    add(
      "Api5xx",
      atLeast(
        this,
        "Api5xx",
        props.restApi.metricServerError({ period: FIVE_MINUTES, statistic: "Sum" }),
        props.api5xxPerFiveMinutes ?? OPERATIONS_DEFAULTS.api5xxPerFiveMinutes,
        { description: "The goals API answered 5XX." },
      ),
    );
    const approvalSeconds =
      props.pendingApprovalAlarmAfter?.toSeconds() ?? OPERATIONS_DEFAULTS.pendingApprovalAlarmSeconds;
    add(
      "OldestPendingApproval",
      new Alarm(this, "OldestPendingApprovalAlarm", {
        alarmDescription: `An approval has waited longer than ${approvalSeconds} s for a human.`,
        metric: this.goalMetric(GOAL_METRICS.oldestPendingApprovalAgeSeconds, "Maximum", PROBE_INTERVAL),
        threshold: approvalSeconds,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        // A missing datapoint means the probe did not run; its own error alarm says why.
        treatMissingData: TreatMissingData.MISSING,
      }),
    );
    const spend = props.spendPerHourUsd ?? OPERATIONS_DEFAULTS.spendPerHourUsd;
    add(
      "SpendPerHour",
      new Alarm(this, "SpendPerHourAlarm", {
        alarmDescription: `Goals spent more than $${spend} on model calls in one hour.`,
        // The CostUsd datapoints without Role and Model: every call of the deployment, summed.
        metric: this.goalMetric(GOAL_METRICS.costUsd, "Sum", Duration.hours(1)),
        threshold: spend,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    add(
      "SustainedThrottling",
      new Alarm(this, "SustainedThrottlingAlarm", {
        alarmDescription:
          "Bedrock has throttled goals' model calls for 15 minutes: the account's quota is below models.quotas, or something else uses it. Goals wait, and slow down; compare `goal-loops preflight`'s quotas with models.quotas.",
        metric: this.goalMetric(GOAL_METRICS.capacityWaits, "Sum", FIVE_MINUTES, {
          [METRIC_DIMENSIONS.reason]: "throttled",
        }),
        threshold: 1,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    for (const alarm of props.otherAlarms ?? []) alarm.addAlarmAction(new SnsAction(this.alarmTopic));
    this.alarms = alarms;

    this.dashboard = this.createDashboard(props, functions, [
      ...Object.values(alarms),
      ...(props.otherAlarms ?? []),
    ]);
  }

  /** A goal metric of this deployment (the `service` dimension every function's metrics carry). */
  goalMetric(
    name: string,
    statistic: string,
    period: Duration,
    dimensions: Readonly<Record<string, string>> = {},
  ): Metric {
    return new Metric({
      namespace: this.metricsNamespace,
      metricName: name,
      statistic,
      period,
      dimensionsMap: { service: GOAL_LOOPS_SERVICE_NAME, ...dimensions },
    });
  }

  private createTopic(alarmEmail: string | undefined): Topic {
    // CloudWatch cannot publish to a topic under the AWS managed SNS key: a key of its own that
    // CloudWatch may use. It protects messages in flight only, so it goes with the stack.
    const key = new Key(this, "AlarmTopicKey", {
      description: "goal-loops alarm topic",
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    const topic = new Topic(this, "AlarmTopic", {
      displayName: "goal-loops alarms",
      masterKey: key,
      enforceSSL: true,
    });
    // CloudWatch publishes as its service principal: the topic must allow it, and both the topic
    // and the key only for alarms of this account and region (no confused deputy).
    const cloudWatch = new ServicePrincipal("cloudwatch.amazonaws.com");
    const { account, region } = Stack.of(this);
    const fromOwnAlarms = {
      StringEquals: { "aws:SourceAccount": account },
      ArnLike: {
        "aws:SourceArn": Arn.format({
          partition: Aws.PARTITION,
          service: "cloudwatch",
          region,
          account,
          resource: "alarm",
          resourceName: "*",
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
    };
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: "AllowCloudWatchAlarmsOfThisAccount",
        principals: [cloudWatch],
        actions: ["sns:Publish"],
        resources: [topic.topicArn],
        conditions: fromOwnAlarms,
      }),
    );
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: "AllowCloudWatchAlarmsOfThisAccount",
        principals: [cloudWatch],
        actions: ["kms:Decrypt", "kms:GenerateDataKey*"],
        resources: ["*"],
        conditions: fromOwnAlarms,
      }),
    );
    if (alarmEmail !== undefined) topic.addSubscription(new EmailSubscription(alarmEmail));
    return topic;
  }

  private createProbe(props: OperationsProps): GoalLoopFunction {
    const tenants = [Stack.of(this).account, ...(props.approvalTenantIds ?? [])];
    const probe = new GoalLoopFunction(this, "PendingApprovalsProbe", {
      bundle: "pending-approvals-probe",
      description:
        "goal-loops PendingApprovalsProbe: publish how long the oldest pending approval has waited",
      memorySize: 256,
      environment: {
        ...props.goalTable.environment,
        APPROVAL_TENANT_IDS: tenants.join(","),
      },
    });
    // Reads only. An approval item is small, but at a low payloads.inlineMaxBytes its summary may
    // sit in the payload bucket like any item's large value, so the probe may get those objects.
    props.goalTable.grantReadData(probe);
    acknowledgeWildcardResource(
      probe.role,
      `${props.goalTable.table.tableArn}/index/*`,
      "The probe queries the goal table's own status index (gsi1) for pending approvals; the wildcard never leaves this table.",
    );
    acknowledgeWildcardResource(
      probe.role,
      `${props.goalTable.payloadBucket.bucket.bucketArn}/*`,
      "Object keys of the goal store's payload bucket are content hashes known only at run time; the probe may only get them (no put, no list), to read an offloaded approval item.",
    );
    new Rule(this, "PendingApprovalsSchedule", {
      description: "Runs goal-loops' PendingApprovalsProbe",
      schedule: Schedule.rate(PROBE_INTERVAL),
      targets: [new LambdaFunction(probe.function, { retryAttempts: 0 })],
    });
    return probe;
  }

  private createDashboard(
    props: OperationsProps,
    functions: readonly GoalLoopFunction[],
    alarms: IAlarm[],
  ): Dashboard {
    const sum = (name: string, dimensions: Record<string, string> = {}, label?: string) =>
      this.goalMetric(name, "Sum", FIVE_MINUTES, dimensions).with(label === undefined ? {} : { label });
    const byRoleAndModel = (name: string, statistic: string) =>
      new MathExpression({
        expression: `SEARCH('{${this.metricsNamespace},service,${METRIC_DIMENSIONS.role},${METRIC_DIMENSIONS.model}} MetricName="${name}"', '${statistic}', 300)`,
        label: "",
        period: FIVE_MINUTES,
        searchAccount: undefined,
      });
    const statuses = [
      GOAL_METRICS.goalsStarted,
      GOAL_METRICS.goalsCompleted,
      GOAL_METRICS.goalsPaused,
      GOAL_METRICS.goalsTerminated,
      GOAL_METRICS.goalsFailed,
      GOAL_METRICS.goalsCancelled,
    ];
    const dashboard = new Dashboard(this, "Dashboard", {
      dashboardName: props.dashboardName ?? `${Stack.of(this).stackName}-goal-loops`,
      defaultInterval: Duration.hours(24),
    });
    dashboard.addWidgets(
      new TextWidget({
        markdown: `# goal-loops\nGoal metrics in namespace \`${this.metricsNamespace}\`; alarms notify the topic \`${this.alarmTopic.topicName}\`.`,
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(new AlarmStatusWidget({ title: "Alarms", alarms, width: 24, height: 4 }));
    dashboard.addWidgets(
      ...PATTERNS.map(
        (pattern) =>
          new GraphWidget({
            title: `Goals: ${pattern}`,
            left: statuses.map((status) => sum(status, { [METRIC_DIMENSIONS.pattern]: pattern }, status)),
            width: 8,
          }),
      ),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: "Iterations per pattern",
        left: Object.keys(props.stateMachines).map((pattern) =>
          sum(GOAL_METRICS.iterations, { [METRIC_DIMENSIONS.pattern]: pattern }, pattern),
        ),
        width: 8,
      }),
      new SingleValueWidget({
        title: "Model spend, last hour (USD)",
        metrics: [this.goalMetric(GOAL_METRICS.costUsd, "Sum", Duration.hours(1))],
        width: 4,
      }),
      new GraphWidget({
        title: "Model spend per hour (USD)",
        left: [
          this.goalMetric(GOAL_METRICS.costUsd, "Sum", Duration.hours(1), {}).with({ label: "CostUsd" }),
        ],
        leftAnnotations: [
          { value: props.spendPerHourUsd ?? OPERATIONS_DEFAULTS.spendPerHourUsd, label: "alarm" },
        ],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: "Cost per role and model (USD)",
        left: [byRoleAndModel(GOAL_METRICS.costUsd, "Sum")],
        width: 6,
      }),
      new GraphWidget({
        title: "Input tokens per role and model",
        left: [byRoleAndModel(GOAL_METRICS.inputTokens, "Sum")],
        width: 6,
      }),
      new GraphWidget({
        title: "Output tokens per role and model",
        left: [byRoleAndModel(GOAL_METRICS.outputTokens, "Sum")],
        width: 6,
      }),
      new GraphWidget({
        title: "Cache read / write tokens per role and model",
        left: [byRoleAndModel(GOAL_METRICS.cacheReadTokens, "Sum")],
        right: [byRoleAndModel(GOAL_METRICS.cacheWriteTokens, "Sum")],
        width: 6,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: "Approval wait (s)",
        left: ["approved", "rejected", "expired"].map((outcome) =>
          this.goalMetric(GOAL_METRICS.approvalWaitSeconds, "Average", FIVE_MINUTES, {
            [METRIC_DIMENSIONS.outcome]: outcome,
          }).with({ label: outcome }),
        ),
        width: 12,
      }),
      new GraphWidget({
        title: "Oldest pending approval (s)",
        left: [this.goalMetric(GOAL_METRICS.oldestPendingApprovalAgeSeconds, "Maximum", PROBE_INTERVAL)],
        leftAnnotations: [
          {
            value:
              props.pendingApprovalAlarmAfter?.toSeconds() ?? OPERATIONS_DEFAULTS.pendingApprovalAlarmSeconds,
            label: "alarm",
          },
        ],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: "Model calls that waited for capacity, by why",
        left: CAPACITY_WAIT_REASONS.map((reason) =>
          sum(GOAL_METRICS.capacityWaits, { [METRIC_DIMENSIONS.reason]: reason }, reason),
        ),
        width: 12,
      }),
      new GraphWidget({
        title: "Model calls that waited for capacity, by model",
        left: [
          new MathExpression({
            expression: `SEARCH('{${this.metricsNamespace},service,${METRIC_DIMENSIONS.model}} MetricName="${GOAL_METRICS.capacityWaits}"', 'Sum', 300)`,
            label: "",
            period: FIVE_MINUTES,
          }),
        ],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: "Owned secrets' age in days (secrets.<name>; each alarms past its rotateAfterDays)",
        left: [
          new MathExpression({
            expression: `SEARCH('{${this.metricsNamespace},service,${METRIC_DIMENSIONS.secret}} MetricName="${GOAL_METRICS.secretAgeDays}"', 'Maximum', 86400)`,
            label: "",
            period: Duration.days(1),
          }),
        ],
        width: 24,
      }),
    );
    const executions = (metric: (sm: StateMachine) => IMetric) =>
      Object.values(props.stateMachines).map((sm) => metric(sm));
    dashboard.addWidgets(
      new GraphWidget({
        title: "Executions started / succeeded",
        left: executions((sm) => sm.metricStarted({ period: FIVE_MINUTES })),
        right: executions((sm) => sm.metricSucceeded({ period: FIVE_MINUTES })),
        width: 8,
      }),
      new GraphWidget({
        title: "Executions failed / timed out",
        left: executions((sm) => sm.metricFailed({ period: FIVE_MINUTES })),
        right: executions((sm) => sm.metricTimedOut({ period: FIVE_MINUTES })),
        width: 8,
      }),
      new GraphWidget({
        title: "API requests / 4XX / 5XX",
        left: [props.restApi.metricCount({ period: FIVE_MINUTES, statistic: "Sum" })],
        right: [
          props.restApi.metricClientError({ period: FIVE_MINUTES, statistic: "Sum" }),
          props.restApi.metricServerError({ period: FIVE_MINUTES, statistic: "Sum" }),
        ],
        width: 8,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: "Lambda errors",
        left: functions.map((fn) =>
          fn.function.metricErrors({ period: FIVE_MINUTES, statistic: "Sum", label: functionName(fn) }),
        ),
        width: 12,
      }),
      new GraphWidget({
        title: "Lambda throttles",
        left: functions.map((fn) =>
          fn.function.metricThrottles({ period: FIVE_MINUTES, statistic: "Sum", label: functionName(fn) }),
        ),
        width: 12,
      }),
    );
    return dashboard;
  }
}

function atLeast(
  scope: Construct,
  name: string,
  metric: IMetric,
  threshold: number,
  options: { readonly description: string },
): Alarm {
  return new Alarm(scope, `${name}Alarm`, {
    alarmDescription: options.description,
    metric,
    threshold,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

/** `plan_execute` → `PlanExecute`. */
function pascal(value: string): string {
  return value
    .split(/[_-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

/** A function's name in alarm ids and labels: its construct path under the app (`ReactLoopVerifyAndReason`). */
function functionName(fn: GoalLoopFunction): string {
  const stack = Stack.of(fn);
  return fn.node.scopes
    .slice(fn.node.scopes.indexOf(stack) + 1)
    .map((scope) => scope.node.id)
    .filter((id) => id !== "Default")
    .join("");
}

function validateProps(props: OperationsProps): void {
  const { spendPerHourUsd, pendingApprovalAlarmAfter, lambdaErrorsPerFiveMinutes, api5xxPerFiveMinutes } =
    props;
  if (spendPerHourUsd !== undefined && !Token.isUnresolved(spendPerHourUsd) && !(spendPerHourUsd > 0)) {
    throw new Error(`Operations: spendPerHourUsd must be above 0; got ${spendPerHourUsd}`);
  }
  if (pendingApprovalAlarmAfter !== undefined && pendingApprovalAlarmAfter.toSeconds() < 60) {
    throw new Error(
      `Operations: pendingApprovalAlarmAfter must be at least 1 minute; got ${pendingApprovalAlarmAfter.toHumanString()}`,
    );
  }
  for (const [name, value] of [
    ["lambdaErrorsPerFiveMinutes", lambdaErrorsPerFiveMinutes],
    ["api5xxPerFiveMinutes", api5xxPerFiveMinutes],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      throw new Error(`Operations: ${name} must be a whole number from 1; got ${value}`);
    }
  }
}
