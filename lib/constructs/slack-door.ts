import { Stack, Token } from "aws-cdk-lib";
import { AuthorizationType, LambdaIntegration, type RestApi } from "aws-cdk-lib/aws-apigateway";
import type { Grant, IGrantable } from "aws-cdk-lib/aws-iam";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { PARTITION_PREFIXES } from "../../lambdas/adapters/dynamodb/table-design";
import { SLACK_ROUTES } from "../../lambdas/core/human/slack/slack-routes";
import {
  SLACK_CHANNEL_TENANTS_ENV,
  SlackChannelTenantsSchema,
} from "../../lambdas/core/human/slack/slack-tenants";
import { SLACK_CHANNEL_ID_PATTERN, SLACK_USER_ID_PATTERN } from "../config/goal-loops-config";
import { parseSettings } from "../config/parse-settings";
import type { GoalEventBus } from "./goal-event-bus";
import type { GoalItemAccess } from "./goal-item-grant";
import { GoalLoopFunction, type GoalLoopLogLevel } from "./goal-loop-function";
import type { GoalTable } from "./goal-table";
import { acknowledgeGoalItemGrant, acknowledgeNag } from "./nag-acknowledgments";

/**
 * Every item the door touches, by key (its function makes no other DynamoDB call): it reads goals
 * (the tenant check, `/goal status`, whether a goal still waits) and approvals, decides an approval
 * by a conditional put of the whole item (which may carry large values: the payload objects under
 * `APPROVAL/`), and remembers each request's signature in a small `SLACK#` item (replay guard).
 */
const SLACK_DOOR_ITEMS: GoalItemAccess = {
  get: [PARTITION_PREFIXES.goal, PARTITION_PREFIXES.approval],
  put: [PARTITION_PREFIXES.approval],
  putSmall: [PARTITION_PREFIXES.slackRequest],
};

export interface SlackDoorProps {
  /** The goal store holding the approvals the buttons decide, and the replay guard's items. */
  readonly goalTable: GoalTable;

  /** The bus `Approval Decided` and `Revision Requested` go on. */
  readonly goalEventBus: GoalEventBus;

  /** The REST API `/slack/interactions` and `/slack/commands` are added to (the GoalsApi's). */
  readonly restApi: RestApi;

  /**
   * The Slack app's signing secret. Put the value from the app's "Basic Information" page into it.
   *
   * @default - a new secret holding a random value, which refuses every request until replaced
   */
  readonly signingSecret?: ISecret;

  /**
   * The Slack app's bot token (`xoxb-…`, scope `chat:write`).
   *
   * @default - a new secret holding a random value, which Slack refuses until replaced
   */
  readonly botToken?: ISecret;

  /**
   * The tenant whose goals and approvals this Slack workspace may see and change from any channel
   * `channelTenants` does not name; others are answered as unknown.
   *
   * @default - the stack's account: the tenant of API callers signing with its credentials
   */
  readonly tenantId?: string;

  /**
   * Slack channel ids mapped to the tenant a click or `/goal` command from that channel acts for,
   * in place of `tenantId`.
   *
   * @default - none: every channel acts for `tenantId`
   */
  readonly channelTenants?: Readonly<Record<string, string>>;

  /**
   * The Slack users (`U0123ABCD`, `W0123ABCD`) who may press Approve / Reject and use `/goal`.
   * Anyone else gets a 403 telling them to ask the deployer, and nothing changes.
   *
   * @default [] - every click and command is refused
   */
  readonly approverUserIds?: readonly string[];

  /**
   * The channel approval requests go to when a goal's `approval.slackChannel` is not set.
   *
   * @default - none: a goal that asks for Slack approvals must name its channel
   */
  readonly defaultChannel?: string;

  /**
   * Powertools log level of the door's function.
   *
   * @default "INFO"
   */
  readonly logLevel?: GoalLoopLogLevel;

  /**
   * How long the function's log group keeps lines.
   *
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * The Slack door (DESIGN §5): `POST /slack/interactions` (Approve / Reject buttons) and
 * `POST /slack/commands` (the `/goal` slash command) on the goals API, served by a function of
 * their own with no API Gateway auth, because Slack cannot sign with SigV4: Slack's v0 request
 * signature, verified in the handler with the signing secret, proves the request came from Slack;
 * the approver list (`approverUserIds`) says which of the workspace's users may act, and the door
 * sees one tenant's goals only. Being internet-facing, its function may only get and put the items
 * it uses (no Query, Scan or delete; see `SLACK_DOOR_ITEMS`). The construct owns (or imports) the
 * signing secret and the bot token, and lets the function that posts approval requests read the
 * token (`grantPostApprovalMessages`, `notifierEnvironment`).
 */
export class SlackDoor extends Construct {
  readonly handler: GoalLoopFunction;
  readonly signingSecret: ISecret;
  readonly botToken: ISecret;
  /** Environment a posting function needs: `SLACK_BOT_TOKEN_ARN` and `SLACK_DEFAULT_CHANNEL` when set. */
  readonly notifierEnvironment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: SlackDoorProps) {
    super(scope, id);
    validateProps(props);
    const approverUserIds = [...new Set(props.approverUserIds ?? [])];

    this.signingSecret = props.signingSecret ?? this.placeholderSecret("SigningSecret", "signing secret");
    this.botToken = props.botToken ?? this.placeholderSecret("BotToken", "bot token (xoxb-…)");
    this.notifierEnvironment = {
      SLACK_BOT_TOKEN_ARN: this.botToken.secretArn,
      ...(props.defaultChannel === undefined ? {} : { SLACK_DEFAULT_CHANNEL: props.defaultChannel }),
    };

    this.handler = new GoalLoopFunction(this, "Handler", {
      bundle: "slack-door",
      description: "goal-loops Slack door: approval buttons and the /goal slash command, Slack-signed",
      logLevel: props.logLevel,
      logRetention: props.logRetention,
      environment: {
        ...props.goalTable.environment,
        GOAL_EVENT_BUS_NAME: props.goalEventBus.eventBus.eventBusName,
        SLACK_SIGNING_SECRET_ARN: this.signingSecret.secretArn,
        SLACK_TENANT_ID: props.tenantId ?? Stack.of(this).account,
        ...(Object.keys(props.channelTenants ?? {}).length === 0
          ? {}
          : { [SLACK_CHANNEL_TENANTS_ENV]: JSON.stringify(props.channelTenants) }),
        ...(approverUserIds.length === 0 ? {} : { SLACK_APPROVER_USER_IDS: approverUserIds.join(",") }),
      },
    });
    props.goalTable.grantItems(this.handler, SLACK_DOOR_ITEMS);
    acknowledgeGoalItemGrant(this.handler.role, props.goalTable, SLACK_DOOR_ITEMS);
    this.signingSecret.grantRead(this.handler);
    props.goalEventBus.grantPutEvents(this.handler);

    this.addRoutes(props.restApi);
  }

  /** Lets a function post approval requests to Slack: read the bot token. */
  grantPostApprovalMessages(grantee: IGrantable): Grant {
    return this.botToken.grantRead(grantee);
  }

  private placeholderSecret(id: string, what: string): ISecret {
    const secret = new Secret(this, id, {
      description: `goal-loops: the Slack app's ${what}; replace the generated value with the app's`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    acknowledgeNag(
      secret,
      "AwsSolutions-SMG4",
      "Slack issues this value: it is rotated in the Slack app's settings and then put here as a new version; " +
        "Secrets Manager cannot rotate it on its own.",
    );
    return secret;
  }

  private addRoutes(api: RestApi): void {
    const integration = new LambdaIntegration(this.handler.function, { allowTestInvoke: false });
    // ANY too: another method reaches the handler, which answers 405 with Allow (as locally).
    const routes = [SLACK_ROUTES.interactions, SLACK_ROUTES.commands].flatMap((path) =>
      ["POST", "ANY"].map((verb) => ({ path, verb })),
    );
    for (const { path, verb } of routes) {
      const method = api.root
        .resourceForPath(path)
        .addMethod(verb, integration, { authorizationType: AuthorizationType.NONE });
      const reason =
        "Slack signs requests; verified in the handler: Slack cannot sign with SigV4 or present a user-pool token, so the " +
        "route has no API Gateway auth and the handler refuses any request whose v0 signature, timestamp or replay check fails, " +
        "and any from a Slack user not on the approver list (403).";
      acknowledgeNag(method, "AwsSolutions-APIG4", reason);
      acknowledgeNag(method, "AwsSolutions-COG4", reason);
    }
  }
}

function validateProps(props: SlackDoorProps): void {
  const { defaultChannel, tenantId, approverUserIds = [], channelTenants } = props;
  if (channelTenants !== undefined) {
    parseSettings(SlackChannelTenantsSchema, channelTenants, "SlackDoor", "channelTenants");
  }
  for (const userId of approverUserIds) {
    if (!Token.isUnresolved(userId) && !SLACK_USER_ID_PATTERN.test(userId)) {
      throw new Error(`SlackDoor: approverUserIds must be Slack user ids such as U0123ABCD; got '${userId}'`);
    }
  }
  if (
    defaultChannel !== undefined &&
    !Token.isUnresolved(defaultChannel) &&
    !SLACK_CHANNEL_ID_PATTERN.test(defaultChannel)
  ) {
    throw new Error(
      `SlackDoor: defaultChannel must be a Slack channel id such as C0123ABCD; got '${defaultChannel}'`,
    );
  }
  if (
    tenantId !== undefined &&
    !Token.isUnresolved(tenantId) &&
    !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(tenantId)
  ) {
    throw new Error(
      `SlackDoor: tenantId must be a tenant id (an AWS account id or a tenant of tenants); got '${tenantId}'`,
    );
  }
}
