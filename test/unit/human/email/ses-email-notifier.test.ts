import { SESv2Client, SendEmailCommand } from "@aws-sdk/client-sesv2";
import { mockClient } from "aws-sdk-client-mock";
import { describe, expect, it } from "vitest";
import {
  ApprovalEmailSendError,
  EmailConfigurationError,
  emailApprovalNotifierFromEnv,
} from "../../../../lambdas/adapters/ses/ses-email-notifier";
import { ApprovalEmailSchema } from "../../../../lambdas/core/human/email/approval-email";
import { verifyApprovalLink } from "../../../../lambdas/core/human/email/approval-link";
import { InMemoryOutbox } from "../../tools/support";
import {
  APPROVER,
  aPendingApproval,
  BASE_URL,
  HOSTILE_OBJECTIVE,
  LINK_SECRET,
  NOW,
  TASK_TOKEN,
} from "./support";

const ENV = {
  PUBLIC_API_URL: BASE_URL,
  EMAIL_LINK_SECRET: LINK_SECRET,
  AWS_REGION: "us-east-1",
  // Configured in another case than the goal names it: addresses compare without case.
  EMAIL_APPROVERS: `lead@example.test,${APPROVER.toUpperCase()}`,
};

function sesClient(): SESv2Client {
  return new SESv2Client({
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
}

describe("email approval notifier", () => {
  it("sends through SES v2: subject, text and HTML bodies with working approve and reject links, no task token", async () => {
    // Prepare
    const client = sesClient();
    const ses = mockClient(client);
    ses.on(SendEmailCommand).resolves({ MessageId: "ses-1" });
    const notifier = emailApprovalNotifierFromEnv(
      { ...ENV, EMAIL_FROM: "goals@example.test" },
      { outbox: new InMemoryOutbox(), ses: client },
    );
    const approval = aPendingApproval("goal-1", { taskToken: TASK_TOKEN });

    // Act
    const sent = await notifier.sendApprovalEmail({ approval, objective: HOSTILE_OBJECTIVE, to: APPROVER });

    // Assess
    expect(sent).toMatchObject({ messageId: "ses-1", delivery: "ses" });
    const [call] = ses.commandCalls(SendEmailCommand);
    const input = call?.args[0].input;
    expect(input?.FromEmailAddress).toBe("goals@example.test");
    expect(input?.Destination?.ToAddresses).toEqual([APPROVER]);
    const simple = input?.Content?.Simple;
    expect(simple?.Subject?.Data).toBe(`Approval needed: ${approval.action.summary}`);
    for (const link of [sent.email.links.approve, sent.email.links.reject]) {
      expect(simple?.Body?.Text?.Data).toContain(link);
      expect(simple?.Body?.Html?.Data).toContain(link.replaceAll("&", "&amp;"));
    }
    expect(simple?.Body?.Html?.Data).not.toContain("<script>");
    expect(JSON.stringify(input)).not.toContain(TASK_TOKEN);
    const approve = new URL(sent.email.links.approve);
    expect(
      verifyApprovalLink({
        approvalId: approval.approvalId,
        decision: approve.searchParams.get("decision") ?? undefined,
        expires: approve.searchParams.get("expires") ?? undefined,
        approver: approve.searchParams.get("approver") ?? undefined,
        sig: approve.searchParams.get("sig") ?? undefined,
        secret: LINK_SECRET,
        now: NOW,
      }),
    ).toMatchObject({ decision: "approve", expiresAt: new Date(approval.expiresAt), approver: APPROVER });
  });

  it.each([
    ["an address not on the list", ENV.EMAIL_APPROVERS],
    ["any address while no approver is configured", undefined],
  ])("never mails %s: EmailNotAnApproverError, and SES is not called", async (_case, approvers) => {
    // Prepare
    const client = sesClient();
    const ses = mockClient(client);
    ses.on(SendEmailCommand).resolves({ MessageId: "ses-1" });
    const { EMAIL_APPROVERS: _all, ...withoutApprovers } = ENV;
    const env = approvers === undefined ? withoutApprovers : { ...ENV, EMAIL_APPROVERS: approvers };
    const notifier = emailApprovalNotifierFromEnv(
      { ...env, EMAIL_FROM: "goals@example.test" },
      { outbox: new InMemoryOutbox(), ses: client },
    );
    const to = approvers === undefined ? APPROVER : "mallory@example.test";

    // Act
    const sent = notifier.sendApprovalEmail({ approval: aPendingApproval("goal-9"), objective: "o", to });

    // Assess
    await expect(sent).rejects.toMatchObject({
      name: "EmailNotAnApproverError",
      message: expect.stringContaining(`${to} is not in approvals.email.approvers`),
    });
    expect(ses.commandCalls(SendEmailCommand)).toEqual([]);
  });

  it("turns SES throttling into a retryable ApprovalEmailSendError and a refusal into a fatal one", async () => {
    // Prepare
    const client = sesClient();
    const ses = mockClient(client);
    const throttled = Object.assign(new Error("slow down"), { name: "TooManyRequestsException" });
    const refused = Object.assign(new Error("not verified"), { name: "MessageRejected" });
    ses.on(SendEmailCommand).rejectsOnce(throttled).rejectsOnce(refused);
    const notifier = emailApprovalNotifierFromEnv(
      { ...ENV, EMAIL_FROM: "goals@example.test" },
      {
        outbox: new InMemoryOutbox(),
        ses: client,
      },
    );
    const request = { approval: aPendingApproval("goal-1"), objective: "o", to: APPROVER };

    // Act
    const first = await notifier.sendApprovalEmail(request).catch((error: unknown) => error);
    const second = await notifier.sendApprovalEmail(request).catch((error: unknown) => error);

    // Assess
    expect(first).toBeInstanceOf(ApprovalEmailSendError);
    expect(first).toMatchObject({ retryable: true });
    expect(second).toMatchObject({ name: "ApprovalEmailSendError", retryable: false });
  });

  it("without an injected client, builds the SES client on the first send and keeps it for the next", async () => {
    // Prepare: every SESv2Client is mocked, so the one the notifier builds itself answers here
    const ses = mockClient(SESv2Client);
    ses.on(SendEmailCommand).resolves({ MessageId: "ses-2" });
    const notifier = emailApprovalNotifierFromEnv(
      { ...ENV, EMAIL_FROM: "goals@example.test" },
      { outbox: new InMemoryOutbox() },
    );
    const request = { approval: aPendingApproval("goal-3"), objective: "o", to: APPROVER };

    try {
      // Act
      const first = await notifier.sendApprovalEmail(request);
      await notifier.sendApprovalEmail(request);

      // Assess
      expect(first).toMatchObject({ messageId: "ses-2", delivery: "ses" });
      const calls = ses.commandCalls(SendEmailCommand);
      expect(calls).toHaveLength(2);
      expect(calls[0]?.thisValue).toBe(calls[1]?.thisValue);
    } finally {
      ses.restore();
    }
  });

  it("locally (NOTIFY_DELIVERY=outbox) puts the same email in the outbox, once per approval", async () => {
    // Prepare
    const outbox = new InMemoryOutbox();
    const notifier = emailApprovalNotifierFromEnv(
      { ...ENV, NOTIFY_DELIVERY: "outbox" },
      { outbox, now: () => NOW },
    );
    const approval = aPendingApproval("goal-2");

    // Act
    const sent = await notifier.sendApprovalEmail({ approval, objective: HOSTILE_OBJECTIVE, to: APPROVER });
    await notifier.sendApprovalEmail({ approval, objective: HOSTILE_OBJECTIVE, to: APPROVER });

    // Assess
    const messages = await outbox.listMessages("goal-2");
    expect(messages).toHaveLength(1);
    const [message] = messages;
    expect(message).toMatchObject({
      messageId: sent.messageId,
      channel: "email",
      tenantId: approval.tenantId,
    });
    expect(ApprovalEmailSchema.parse(JSON.parse(message?.message ?? ""))).toEqual(sent.email);
    expect(sent.email.from).toBe("goal-loops@localhost");
    expect(message?.message).not.toContain(TASK_TOKEN);
  });

  it("refuses to start without PUBLIC_API_URL, or without EMAIL_FROM when sending through SES", () => {
    // Act + Assess
    expect(() =>
      emailApprovalNotifierFromEnv({ EMAIL_LINK_SECRET: LINK_SECRET }, { outbox: new InMemoryOutbox() }),
    ).toThrow(EmailConfigurationError);
    expect(() => emailApprovalNotifierFromEnv(ENV, { outbox: new InMemoryOutbox() })).toThrow(/EMAIL_FROM/);
  });
});
