import type { SESv2Client } from "@aws-sdk/client-sesv2";
import { GoalLoopsError } from "../../core/goal/errors";
import { type ApprovalEmail, buildApprovalEmail } from "../../core/human/email/approval-email";
import type {
  EmailApprovalNotifier,
  EmailApprovalRequest,
  SentApprovalEmail,
} from "../../core/human/email/email-approval-notifier";
import {
  type EmailApprovers,
  EmailNotAnApproverError,
  emailApprovers,
  isEmailApprover,
} from "../../core/human/email/email-approvers";
import type { Outbox } from "../../core/ports/outbox";
import { emailLinkSecretSource, type LinkSecretSource } from "../secrets/email-secrets";
import { loadOnce } from "../shared/load-once";

/** SES errors that a later attempt may get past; everything else (bad address, unverified identity) is fatal. */
const RETRYABLE_SES_ERRORS = new Set([
  "TooManyRequestsException",
  "LimitExceededException",
  "InternalServiceErrorException",
  "ServiceUnavailableException",
]);

/** SES did not take the approval email. `retryable` says whether the same send may succeed later. */
export class ApprovalEmailSendError extends GoalLoopsError {
  override readonly name = "ApprovalEmailSendError";
  override readonly retryable: boolean;

  constructor(message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.retryable = retryable;
  }
}

/** The email settings are incomplete: a deployment bug, refused at cold start. */
export class EmailConfigurationError extends GoalLoopsError {
  override readonly name = "EmailConfigurationError";
}

/** How a built email leaves: SES in AWS, the outbox locally. Returns the message id. */
export interface ApprovalEmailDelivery {
  readonly kind: SentApprovalEmail["delivery"];
  deliver(email: ApprovalEmail, request: EmailApprovalRequest): Promise<string>;
}

/**
 * The SES v2 client module, loaded on the first send: RequestApproval imports this adapter, but only
 * goals that ask for an approval email send one (and none does where email is not configured or runs
 * locally), so its cold start does not pay for the SES client.
 */
const loadSes = () => import("@aws-sdk/client-sesv2");

/**
 * SES v2 `SendEmail` with a text and an HTML body. Given a region instead of a client, the client is
 * built on the first send and kept for the container's later sends.
 */
export function sesDelivery(
  client: SESv2Client | { readonly region: string | undefined },
): ApprovalEmailDelivery {
  const utf8 = (Data: string) => ({ Data, Charset: "UTF-8" });
  const ready = loadOnce(async () => {
    const sdk = await loadSes();
    return { sdk, ses: "send" in client ? client : new sdk.SESv2Client({ region: client.region }) };
  });
  return {
    kind: "ses",
    async deliver(email) {
      try {
        const { ses, sdk } = await ready();
        const answer = await ses.send(
          new sdk.SendEmailCommand({
            FromEmailAddress: email.from,
            Destination: { ToAddresses: [email.to] },
            Content: {
              Simple: {
                Subject: utf8(email.subject),
                Body: { Text: utf8(email.text), Html: utf8(email.html) },
              },
            },
          }),
        );
        return answer.MessageId ?? "unknown";
      } catch (error) {
        const name = error instanceof Error ? error.name : "UnknownError";
        throw new ApprovalEmailSendError(
          `SES did not send the approval email: ${name}`,
          RETRYABLE_SES_ERRORS.has(name),
          {
            cause: error,
          },
        );
      }
    },
  };
}

/**
 * The local delivery: the email, exactly as SES would get it, goes to the outbox as JSON in
 * `message` (channel `email`), one message per approval; a repeated send finds the first.
 */
export function outboxDelivery(outbox: Outbox, now: () => Date): ApprovalEmailDelivery {
  return {
    kind: "outbox",
    async deliver(email, request) {
      const { approval } = request;
      const { message } = await outbox.putMessage({
        messageId: `email-approval-${approval.approvalId}`,
        goalId: approval.goalId,
        tenantId: approval.tenantId,
        channel: "email",
        message: JSON.stringify(email),
        createdAt: now().toISOString(),
      });
      return message.messageId;
    },
  };
}

export interface EmailApprovalNotifierOptions {
  readonly delivery: ApprovalEmailDelivery;
  /** The sender address, an SES-verified identity in AWS. */
  readonly from: string;
  /** The API's public base URL the links point at. */
  readonly baseUrl: string;
  readonly secret: LinkSecretSource;
  /** The only addresses mailed (`approvals.email.approvers`); empty: nobody is. */
  readonly approvers: EmailApprovers;
}

/**
 * Builds the approval email (links signed for the recipient) and hands it to the delivery. A
 * recipient who is not an approver is never mailed: `EmailNotAnApproverError`, and the caller
 * falls back to the plain outbox record that the API and the CLI read.
 */
export function createEmailApprovalNotifier(options: EmailApprovalNotifierOptions): EmailApprovalNotifier {
  return {
    async sendApprovalEmail(request) {
      if (!isEmailApprover(options.approvers, request.to)) throw new EmailNotAnApproverError(request.to);
      const email = buildApprovalEmail({
        approval: request.approval,
        objective: request.objective,
        to: request.to,
        from: options.from,
        baseUrl: options.baseUrl,
        secret: await options.secret(),
      });
      const messageId = await options.delivery.deliver(email, request);
      return { messageId, delivery: options.delivery.kind, email };
    },
  };
}

/** The sender a local run shows in the outbox when no SES identity is configured. */
const LOCAL_FROM = "goal-loops@localhost";

/**
 * The notifier a handler builds at module scope from its environment: `NOTIFY_DELIVERY=outbox`
 * (the local runtime) puts emails in the outbox, otherwise SES sends them from `EMAIL_FROM`, to
 * the addresses of `EMAIL_APPROVERS` only (comma-separated; unset: to nobody). Links point at
 * `PUBLIC_API_URL` and are signed with the email link secret.
 */
export function emailApprovalNotifierFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  ports: { readonly outbox: Outbox; readonly now?: () => Date; readonly ses?: SESv2Client },
): EmailApprovalNotifier {
  const baseUrl = env.PUBLIC_API_URL;
  if (baseUrl === undefined || baseUrl === "") {
    throw new EmailConfigurationError("PUBLIC_API_URL is not set: approval links need the API's address");
  }
  const local = env.NOTIFY_DELIVERY === "outbox";
  const from = env.EMAIL_FROM || (local ? LOCAL_FROM : undefined);
  if (from === undefined) {
    throw new EmailConfigurationError("EMAIL_FROM is not set: approval emails need an SES sender identity");
  }
  const delivery = local
    ? outboxDelivery(ports.outbox, ports.now ?? (() => new Date()))
    : sesDelivery(ports.ses ?? { region: env.AWS_REGION });
  return createEmailApprovalNotifier({
    delivery,
    from,
    baseUrl,
    secret: emailLinkSecretSource(env),
    approvers: emailApprovers((env.EMAIL_APPROVERS ?? "").split(",")),
  });
}
