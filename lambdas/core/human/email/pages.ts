import type { ApprovalStatus } from "../../ports/goal-store";
import type { LinkDecision } from "./approval-link";
import { type Html, html } from "./html";

/** What a page says about the approval: never the task token, only what a human decides on. */
export interface ApprovalSummary {
  readonly approvalId: string;
  /** The goal's objective; absent when the goal could not be read. */
  readonly objective?: string;
  /** The pending action, as the approval request described it. */
  readonly action: { readonly kind: string; readonly summary: string };
}

export interface ConfirmationPageInput {
  readonly approval: ApprovalSummary;
  readonly decision: LinkDecision;
  /** Until when the link works. */
  readonly expiresAt: Date;
  /** The link's query (`?decision=…&expires=…&approver=…&sig=…`): the form posts it back to the same URL. */
  readonly query: string;
}

/** Every answer the email door can give after a link was followed or its form posted. */
export type ResultPageInput =
  | {
      readonly kind: "decided";
      readonly approval: ApprovalSummary;
      readonly decision: LinkDecision;
      readonly decidedBy: string;
      readonly decidedAt: string;
    }
  | {
      readonly kind: "already_decided";
      readonly approval: ApprovalSummary;
      readonly status: ApprovalStatus;
      readonly decidedBy?: string;
      readonly decidedAt?: string;
    }
  | { readonly kind: "link_expired"; readonly expiredAt: Date }
  | {
      readonly kind: "approval_expired";
      readonly approval: ApprovalSummary;
      /** `expired`: the request timed out; `superseded`: the goal changed and a new request was made. */
      readonly status: "expired" | "superseded";
      readonly expiresAt: string;
    }
  | { readonly kind: "tampered" }
  /** A correctly signed link sent to an address that is no longer (or never was) an approver. */
  | { readonly kind: "not_approver"; readonly approver: string }
  | { readonly kind: "malformed"; readonly detail: string }
  | { readonly kind: "not_found" }
  | { readonly kind: "error"; readonly requestId: string };

const PAST: Readonly<Record<LinkDecision, string>> = { approve: "approved", reject: "rejected" };

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.5;margin:0;background:#f6f7f9;color:#1b1f24}
main{max-width:40rem;margin:2rem auto;padding:1.5rem 2rem;background:#fff;border:1px solid #d0d7de;border-radius:8px}
h1{font-size:1.5rem;margin-top:0}dt{font-weight:600;margin-top:.75rem}dd{margin:0;overflow-wrap:anywhere}
label{display:block;font-weight:600;margin-top:1rem}textarea{width:100%;box-sizing:border-box;font:inherit}
button{margin-top:1rem;font:inherit;font-weight:600;padding:.6rem 1.4rem;border:0;border-radius:6px;color:#fff;cursor:pointer}
.approve{background:#1a7f37}.reject{background:#cf222e}button:focus-visible{outline:3px solid #0969da;outline-offset:2px}
.note{color:#57606a;font-size:.9rem}`;

function layout(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title} · goal-loops</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.text;
}

function details(approval: ApprovalSummary): Html {
  return html`<dl>
<dt>Goal</dt><dd>${approval.objective ?? "(the goal could not be read)"}</dd>
<dt>Pending action</dt><dd>${approval.action.summary} <span class="note">(${approval.action.kind})</span></dd>
<dt>Approval</dt><dd><code>${approval.approvalId}</code></dd>
</dl>`;
}

/**
 * The page a GET on an email link shows. It decides nothing (mail scanners and link previews
 * follow links): the one button posts the same signed query back, and only that POST decides.
 */
export function confirmationPage(input: ConfirmationPageInput): string {
  const { decision } = input;
  const verb = decision === "approve" ? "Approve" : "Reject";
  const consequence =
    decision === "approve"
      ? "The goal will go on and run this action."
      : "The goal will record the rejection and go on without this action.";
  return layout(
    `${verb} this action?`,
    html`<h1>${verb} this action?</h1>
<p>You are about to <strong>${decision}</strong> the pending action of this goal. ${consequence}</p>
${details(input.approval)}
<form method="post" action="${input.query}">
<label for="comment">Comment <span class="note">(optional)</span></label>
<textarea id="comment" name="comment" rows="3" maxlength="2000"></textarea>
<button type="submit" class="${decision}">${verb}</button>
</form>
<p class="note">Nothing has been decided yet: opening this page changes nothing, only the button does.
The link works until ${input.expiresAt.toISOString()} and decides once.</p>`,
  );
}

/** The page after a decision was attempted, or a link refused: what happened and why. */
export function resultPage(input: ResultPageInput): string {
  switch (input.kind) {
    case "decided": {
      const done = PAST[input.decision];
      const next =
        input.decision === "approve"
          ? "The goal goes on and runs the action."
          : "The goal records the rejection and goes on without the action.";
      return layout(
        `Action ${done}`,
        html`<h1>Action ${done}</h1>
<p>You ${done} the pending action (as ${input.decidedBy}, at ${input.decidedAt}). ${next}</p>
${details(input.approval)}`,
      );
    }
    case "already_decided":
      return layout(
        "Already decided",
        html`<h1>Already decided</h1>
<p>This approval was already ${input.status}${input.decidedBy === undefined ? "" : html` by ${input.decidedBy}`}${
          input.decidedAt === undefined ? "" : html` at ${input.decidedAt}`
        }. An approval is decided once; this link changed nothing.</p>
${details(input.approval)}`,
      );
    case "link_expired":
      return layout(
        "Link expired",
        html`<h1>This link has expired</h1>
<p>It could be used until ${input.expiredAt.toISOString()}. Nothing was decided. If the goal still
waits, decide through the API or the CLI.</p>`,
      );
    case "approval_expired": {
      const why =
        input.status === "superseded"
          ? "The goal changed since this approval was requested, so a new request replaced it."
          : html`The request timed out at ${input.expiresAt} before anyone decided.`;
      return layout(
        "Approval no longer open",
        html`<h1>This approval is no longer open</h1>
<p>${why} Nothing was decided by this link.</p>
${details(input.approval)}`,
      );
    }
    case "tampered":
      return layout(
        "Invalid link",
        html`<h1>This link is not valid</h1>
<p>Its signature does not match: it was changed after it was sent, or it was not sent by goal-loops.
Nothing was decided. Use the link exactly as it appears in the email.</p>`,
      );
    case "not_approver":
      return layout(
        "Not an approver",
        html`<h1>This address may not decide approvals</h1>
<p>This link was sent to ${input.approver}, which is not on this deployment's approver list (any more).
Nothing was decided. Ask whoever deploys goal-loops to add the address to
<code>approvals.email.approvers</code> in goal-loops.config.json, or decide through the API or the CLI.</p>`,
      );
    case "malformed":
      return layout(
        "Incomplete link",
        html`<h1>This link is incomplete</h1>
<p>${input.detail}. Nothing was decided. Copy the whole link from the email; some mail programs
break long links across lines.</p>`,
      );
    case "not_found":
      return layout(
        "Unknown approval",
        html`<h1>No such approval</h1>
<p>The approval this link names does not exist (any more). Nothing was decided.</p>`,
      );
    case "error":
      return layout(
        "Something went wrong",
        html`<h1>Something went wrong</h1>
<p>The decision could not be processed. Try the button again in a moment; if it keeps failing,
quote request id <code>${input.requestId}</code>.</p>`,
      );
  }
}
