import { clip } from "../../goal/text";
import type { Approval } from "../../ports/goal-store";
import * as z from "../../zod";
import { signApprovalLink } from "./approval-link";
import { type Html, html } from "./html";

/** What an approval email is built from. Never the task token: the type leaves it out on purpose. */
export type EmailedApproval = Pick<Approval, "approvalId" | "goalId" | "tenantId" | "action" | "expiresAt">;

/** One approval email as it is sent (SES) or put in the local outbox: the same fields both ways. */
export const ApprovalEmailSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    to: z.email(),
    from: z.string().check(z.minLength(1)),
    subject: z.string().check(z.minLength(1), z.maxLength(200)),
    text: z.string(),
    html: z.string(),
    links: z.object({ approve: z.url(), reject: z.url() }),
  }),
);
export type ApprovalEmail = z.infer<typeof ApprovalEmailSchema>;

export interface ApprovalEmailInput {
  readonly approval: EmailedApproval;
  /** The goal's objective, shown so the reader knows what the action serves. */
  readonly objective: string;
  readonly to: string;
  readonly from: string;
  /** The API's public base URL the links point at (`PUBLIC_API_URL`). */
  readonly baseUrl: string;
  readonly secret: string;
}

const SUBJECT_ROOM = 160;

/** One line, no control characters (a header never spans lines), cut with an ellipsis. */
function oneLine(text: string, room: number): string {
  return clip(text.replace(/[\p{Cc}\s]+/gu, " ").trim(), room);
}

/**
 * The approval email: subject, a plain-text and an HTML body, each with an approve and a reject
 * link. The links are signed for the approval's own expiry, so a link never outlives its request,
 * and for the recipient, so they decide as `email:<to>` and only while `to` is an approver.
 */
export function buildApprovalEmail(input: ApprovalEmailInput): ApprovalEmail {
  const { approval, objective } = input;
  const expiresAt = new Date(approval.expiresAt);
  const link = (decision: "approve" | "reject") =>
    signApprovalLink({
      baseUrl: input.baseUrl,
      approvalId: approval.approvalId,
      decision,
      expiresAt,
      approver: input.to,
      secret: input.secret,
    });
  const links = { approve: link("approve"), reject: link("reject") };
  const subject = `Approval needed: ${oneLine(approval.action.summary, SUBJECT_ROOM)}`;

  const text = [
    "A goal is waiting for your decision before it runs this action.",
    "",
    `Goal: ${objective}`,
    `Pending action: ${approval.action.summary} (${approval.action.kind})`,
    `Approval: ${approval.approvalId}`,
    `Decide before: ${expiresAt.toISOString()}`,
    "",
    `Approve: ${links.approve}`,
    "",
    `Reject: ${links.reject}`,
    "",
    "Each link opens a page that asks you to confirm; nothing is decided until you press its button.",
  ].join("\n");

  return ApprovalEmailSchema.parse({
    to: input.to,
    from: input.from,
    subject,
    text,
    html: emailHtml({ subject, objective, approval, expiresAt, links }).text,
    links,
  });
}

function emailHtml(parts: {
  subject: string;
  objective: string;
  approval: EmailedApproval;
  expiresAt: Date;
  links: ApprovalEmail["links"];
}): Html {
  const button = (href: string, label: string, color: string) =>
    html`<a href="${href}" style="display:inline-block;padding:10px 20px;margin-right:12px;border-radius:6px;background:${color};color:#ffffff;font-weight:600;text-decoration:none">${label}</a>`;
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${parts.subject}</title></head>
<body style="font-family:system-ui,-apple-system,'Segoe UI',sans-serif;line-height:1.5;color:#1b1f24">
<p>A goal is waiting for your decision before it runs this action.</p>
<table role="presentation" style="border-collapse:collapse">
<tr><th scope="row" style="text-align:left;padding:4px 12px 4px 0;vertical-align:top">Goal</th><td>${parts.objective}</td></tr>
<tr><th scope="row" style="text-align:left;padding:4px 12px 4px 0;vertical-align:top">Pending action</th><td>${parts.approval.action.summary} (${parts.approval.action.kind})</td></tr>
<tr><th scope="row" style="text-align:left;padding:4px 12px 4px 0;vertical-align:top">Decide before</th><td>${parts.expiresAt.toISOString()}</td></tr>
</table>
<p>${button(parts.links.approve, "Approve", "#1a7f37")}${button(parts.links.reject, "Reject", "#cf222e")}</p>
<p style="color:#57606a;font-size:0.9em">Each button opens a page that asks you to confirm; nothing is decided until you press its button there. Approval ${parts.approval.approvalId}.</p>
</body>
</html>
`;
}
