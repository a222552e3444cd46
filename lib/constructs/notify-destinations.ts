import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import { EmailIdentity, type IEmailIdentity } from "aws-cdk-lib/aws-ses";
import { Construct } from "constructs";
import type { NotifyChannels } from "../../lambdas/tools/notify-destinations";
import { ConfigError } from "../config/parse-settings";
import type { GoalLoopFunction } from "./goal-loop-function";
import { grantSesSend } from "./ses-send-grant";

/**
 * Room `NOTIFY_CHANNELS` may take in an acting function's environment: Lambda allows 4 KB in all,
 * and the tool runner's other settings (user tools, allow-list) need the rest.
 */
const NOTIFY_CHANNELS_MAX_BYTES = 1024;

export interface NotifyDestinationsProps {
  /** The configuration's `notify.channels`, defaults applied. */
  readonly channels: NotifyChannels;
  /**
   * The SES identity (an address) e-mail channels send from.
   *
   * @default - none: refused when a channel is `email`
   */
  readonly emailSender?: string;
  /**
   * The Slack bot token (the Slack door's `botToken`).
   *
   * @default - none: refused when a channel is `slack`
   */
  readonly slackBotToken?: ISecret;
}

/**
 * Where the `notify` tool really sends (DESIGN §6): the configured channels, and what the functions
 * that run tool calls need to reach them, granted narrowly: read of the Slack bot token only when a
 * channel is Slack, `ses:SendEmail` on the sender's and the recipients' identities only when a channel is e-mail. A webhook
 * needs no grant (its host is in `http.allowedHosts`, checked at synth). Creates no resource.
 */
export class NotifyDestinations extends Construct {
  /** `NOTIFY_CHANNELS`, `NOTIFY_EMAIL_FROM`, `SLACK_BOT_TOKEN_ARN` as the tool runner reads them. */
  readonly environment: Readonly<Record<string, string>>;
  private readonly botToken?: ISecret;
  private readonly senderIdentity?: IEmailIdentity;
  /** Every address an e-mail channel sends to. */
  private readonly emailRecipients: readonly string[];

  constructor(scope: Construct, id: string, props: NotifyDestinationsProps) {
    super(scope, id);
    const types = new Set(Object.values(props.channels).map((destination) => destination.type));
    this.emailRecipients = [
      ...new Set(
        Object.values(props.channels).flatMap((destination) =>
          destination.type === "email" ? destination.to : [],
        ),
      ),
    ];
    const channels = JSON.stringify(props.channels);
    if (Buffer.byteLength(channels) > NOTIFY_CHANNELS_MAX_BYTES) {
      throw new ConfigError(
        `notify.channels take ${Buffer.byteLength(channels)} bytes as JSON; the acting functions' environment holds ${NOTIFY_CHANNELS_MAX_BYTES} for them (Lambda allows 4 KB in all): use fewer channels or recipients`,
      );
    }
    if (types.has("slack")) {
      if (props.slackBotToken === undefined) {
        throw new ConfigError("notify.channels: a Slack channel needs the Slack bot token (slackBotToken)");
      }
      this.botToken = props.slackBotToken;
    }
    if (types.has("email")) {
      if (props.emailSender === undefined) {
        throw new ConfigError(
          "notify.channels: an e-mail channel needs a sender: set notify.emailSender (or approvals.email.sender)",
        );
      }
      this.senderIdentity = EmailIdentity.fromEmailIdentityName(this, "EmailSender", props.emailSender);
    }
    this.environment = {
      NOTIFY_CHANNELS: channels,
      ...(this.botToken === undefined ? {} : { SLACK_BOT_TOKEN_ARN: this.botToken.secretArn }),
      ...(props.emailSender === undefined || !types.has("email")
        ? {}
        : { NOTIFY_EMAIL_FROM: props.emailSender }),
    };
  }

  /** Lets a function that runs tool calls deliver to every configured channel. */
  grantDeliver(fn: GoalLoopFunction): void {
    fn.addEnvironment(this.environment);
    this.botToken?.grantRead(fn);
    if (this.senderIdentity !== undefined) {
      grantSesSend(this, fn, { senderIdentity: this.senderIdentity, recipients: this.emailRecipients });
    }
  }
}
