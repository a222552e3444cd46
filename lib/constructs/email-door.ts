import { Stack, Token } from "aws-cdk-lib";
import { AuthorizationType, CfnStage, LambdaIntegration, type RestApi } from "aws-cdk-lib/aws-apigateway";
import type { Grant, IGrantable } from "aws-cdk-lib/aws-iam";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import type { IEmailIdentity } from "aws-cdk-lib/aws-ses";
import { Construct } from "constructs";
import { PARTITION_PREFIXES } from "../../lambdas/adapters/dynamodb/table-design";
import { EMAIL_APPROVAL_PATH } from "../../lambdas/core/human/email/approval-link";
import type { GoalEventBus } from "./goal-event-bus";
import type { GoalItemAccess } from "./goal-item-grant";
import { GoalLoopFunction, type GoalLoopLogLevel } from "./goal-loop-function";
import type { GoalTable } from "./goal-table";
import { acknowledgeGoalItemGrant, acknowledgeNag } from "./nag-acknowledgments";
import { grantSesSend } from "./ses-send-grant";

/**
 * Every item the door touches, by key (its function makes no other DynamoDB call): it reads the
 * approval a link names and its goal (the page's objective, whether the goal still waits), and
 * decides the approval by a conditional put of the whole item (which may carry large values: the
 * payload objects under `APPROVAL/`).
 */
const EMAIL_DOOR_ITEMS: GoalItemAccess = {
  get: [PARTITION_PREFIXES.goal, PARTITION_PREFIXES.approval],
  put: [PARTITION_PREFIXES.approval],
};

/** What the door accepts as an approver address (the config's zod check, for direct construct users). */
const EMAIL_ADDRESS = /^[^@\s,]+@[^@\s,]+$/;

export interface EmailDoorProps {
  /** The goal store holding the approvals the links decide. */
  readonly goalTable: GoalTable;

  /** The bus `Approval Decided` goes on. */
  readonly goalEventBus: GoalEventBus;

  /** The REST API the `/email/approvals/{approvalId}` routes are added to (the GoalsApi's). */
  readonly restApi: RestApi;

  /**
   * The SES identity approval emails are sent from (a verified address or domain). Without one,
   * no function can be granted `ses:SendEmail` and emails cannot be sent from AWS.
   *
   * @default - no sender
   */
  readonly senderIdentity?: IEmailIdentity;

  /**
   * The `From` address. Required when `senderIdentity` is a domain.
   *
   * @default - the identity's name, when it is an email address
   */
  readonly fromAddress?: string;

  /**
   * The only addresses approval emails go to. A link is signed for the address it was sent to,
   * decides as `email:<address>`, and is refused once the address leaves this list.
   *
   * @default [] - no approval email is sent and every link is refused
   */
  readonly approvers?: readonly string[];

  /**
   * The public base URL links point at, ending with the stage (a custom domain, for example).
   *
   * @default - the REST API's execute-api URL of its deployment stage
   */
  readonly publicApiUrl?: string;

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
 * The email door (DESIGN §5): `GET` and `POST /email/approvals/{approvalId}` on the goals API,
 * served by a function of their own with no API Gateway auth, because a person clicking a link in
 * a mail program has no AWS credentials: the link's HMAC, verified in the handler, is the
 * credential, and it names the approver address the email went to (one of `approvers`). GET shows a
 * confirmation page; only POST decides. Being internet-facing, its function may only get and put
 * the items it uses (no Query, Scan or delete; see `EMAIL_DOOR_ITEMS`). The construct owns the link key
 * (a generated Secrets Manager secret) and lets the function that sends approval emails sign links
 * and send (`grantSendApprovalEmails`, `senderEnvironment`).
 */
export class EmailDoor extends Construct {
  readonly handler: GoalLoopFunction;
  /** The HMAC key of approval links. */
  readonly linkSecret: ISecret;
  /** The base URL approval links point at. */
  readonly publicApiUrl: string;
  /**
   * Environment a sending function needs: `PUBLIC_API_URL`, `EMAIL_LINK_SECRET_ARN`, `EMAIL_FROM`
   * and `EMAIL_APPROVERS` (when set).
   */
  readonly senderEnvironment: Readonly<Record<string, string>>;
  private readonly senderIdentity?: IEmailIdentity;
  private readonly fromAddress?: string;
  private readonly approvers: readonly string[];

  constructor(scope: Construct, id: string, props: EmailDoorProps) {
    super(scope, id);
    const fromAddress = validateProps(props);
    this.senderIdentity = props.senderIdentity;
    if (fromAddress !== undefined) this.fromAddress = fromAddress;

    this.linkSecret = new Secret(this, "LinkSecret", {
      description: "goal-loops: HMAC key that signs email approval links",
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    acknowledgeNag(
      this.linkSecret,
      "AwsSolutions-SMG4",
      "An HMAC key for approval links, not a credential of another system: the door verifies links with the current and the " +
        "previous version, so a link survives one rotation but not two; it is rotated by hand (a new secret version, at most once " +
        "per approval timeout) rather than on a schedule that knows nothing of the links in flight.",
    );
    this.publicApiUrl = props.publicApiUrl ?? executeApiUrl(props.restApi);
    const approvers = [...new Set(props.approvers ?? [])];
    this.approvers = approvers;
    const approversEnvironment: Record<string, string> =
      approvers.length === 0 ? {} : { EMAIL_APPROVERS: approvers.join(",") };
    this.senderEnvironment = {
      PUBLIC_API_URL: this.publicApiUrl,
      EMAIL_LINK_SECRET_ARN: this.linkSecret.secretArn,
      ...(fromAddress === undefined ? {} : { EMAIL_FROM: fromAddress }),
      ...approversEnvironment,
    };

    this.handler = new GoalLoopFunction(this, "Handler", {
      bundle: "email-door",
      description: "goal-loops email door: confirmation pages and decisions from signed approval links",
      logLevel: props.logLevel,
      logRetention: props.logRetention,
      environment: {
        ...props.goalTable.environment,
        GOAL_EVENT_BUS_NAME: props.goalEventBus.eventBus.eventBusName,
        EMAIL_LINK_SECRET_ARN: this.linkSecret.secretArn,
        ...approversEnvironment,
      },
    });
    props.goalTable.grantItems(this.handler, EMAIL_DOOR_ITEMS);
    acknowledgeGoalItemGrant(this.handler.role, props.goalTable, EMAIL_DOOR_ITEMS);
    this.linkSecret.grantRead(this.handler);
    props.goalEventBus.grantPutEvents(this.handler);

    this.addRoutes(props.restApi);
  }

  /** Lets a function sign approval links (read the key) and, with a sender identity, send the emails. */
  grantSendApprovalEmails(grantee: IGrantable): Grant {
    const read = this.linkSecret.grantRead(grantee);
    return this.senderIdentity === undefined
      ? read
      : read.combine(
          grantSesSend(this, grantee, {
            senderIdentity: this.senderIdentity,
            ...(this.fromAddress === undefined ? {} : { fromAddress: this.fromAddress }),
            recipients: this.approvers,
          }),
        );
  }

  private addRoutes(api: RestApi): void {
    const integration = new LambdaIntegration(this.handler.function, { allowTestInvoke: false });
    const approval = api.root.resourceForPath(`${EMAIL_APPROVAL_PATH}/{approvalId}`);
    // decision, expires, approver and sig stay optional at the gateway: a link missing one gets the
    // handler's page that says so, not a bare gateway 400.
    const requestParameters = {
      "method.request.path.approvalId": true,
      "method.request.querystring.decision": false,
      "method.request.querystring.expires": false,
      "method.request.querystring.approver": false,
      "method.request.querystring.sig": false,
    };
    // ANY too: another method reaches the handler, which answers 405 with Allow (as locally).
    for (const verb of ["GET", "POST", "ANY"]) {
      const method = approval.addMethod(verb, integration, {
        authorizationType: AuthorizationType.NONE,
        requestParameters,
      });
      const reason =
        "Signed single-use links; HMAC verified in the handler: a person following an approval email has no AWS credentials " +
        "or user-pool token, so the route has no API Gateway auth and the handler refuses any link whose signature or expiry fails, " +
        "or whose signed approver address is not on the approver list.";
      acknowledgeNag(method, "AwsSolutions-APIG4", reason);
      acknowledgeNag(method, "AwsSolutions-COG4", reason);
    }
  }
}

/**
 * `https://{api}.execute-api.{region}.{suffix}/{stage}/`, built from the stage's literal name:
 * `RestApi.url` refers to the stage resource, which depends (through the deployment and the
 * methods) on this function, so putting it in the function's environment would make a cycle.
 */
function executeApiUrl(api: RestApi): string {
  const stage = api.deploymentStage.node.defaultChild;
  if (!(stage instanceof CfnStage) || stage.stageName === undefined) {
    throw new Error("EmailDoor: the REST API has no deployment stage; pass publicApiUrl");
  }
  const stack = Stack.of(api);
  return `https://${api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${stage.stageName}/`;
}

/** The From address, or undefined without a sender. */
function validateProps(props: EmailDoorProps): string | undefined {
  const { senderIdentity, fromAddress, publicApiUrl, approvers = [] } = props;
  for (const address of approvers) {
    if (!Token.isUnresolved(address) && !EMAIL_ADDRESS.test(address)) {
      throw new Error(`EmailDoor: approvers must be e-mail addresses; got '${address}'`);
    }
  }
  if (
    publicApiUrl !== undefined &&
    !Token.isUnresolved(publicApiUrl) &&
    !/^https?:\/\/\S+$/.test(publicApiUrl)
  ) {
    throw new Error(`EmailDoor: publicApiUrl must be an http(s) URL; got '${publicApiUrl}'`);
  }
  if (fromAddress !== undefined && senderIdentity === undefined) {
    throw new Error("EmailDoor: fromAddress needs a senderIdentity to send from");
  }
  if (senderIdentity === undefined) return undefined;
  const address = fromAddress ?? senderIdentity.emailIdentityName;
  if (!Token.isUnresolved(address) && !/^[^@\s]+@[^@\s]+$/.test(address)) {
    throw new Error(
      `EmailDoor: senderIdentity '${address}' is a domain; pass fromAddress (an address of that domain)`,
    );
  }
  return address;
}
