import { describe, expect, it } from "vitest";
import { escapeHtml, html } from "../../../../lambdas/core/human/email/html";
import {
  confirmationPage,
  type ResultPageInput,
  resultPage,
} from "../../../../lambdas/core/human/email/pages";
import { EXPIRES_AT, HOSTILE_OBJECTIVE } from "./support";

const HOSTILE_SUMMARY = `notify "<img src=x onerror=alert(1)>"`;
const summary = {
  approvalId: "ap-1",
  objective: HOSTILE_OBJECTIVE,
  action: { kind: "tool", summary: HOSTILE_SUMMARY },
};

describe("email pages", () => {
  it("escapes &, <, >, quotes and backticks, and only the html tag's own output passes unescaped", () => {
    // Act
    const escaped = escapeHtml(`<a href="x" title='y'>&\`</a>`);
    const nested = html`<p>${"<b>"}${html`<i>${"&"}</i>`}</p>`;

    // Assess
    expect(escaped).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;");
    expect(nested.text).toBe("<p>&lt;b&gt;<i>&amp;</i></p>");
  });

  it("shows the decision, objective and action as text on the confirmation page, with one POST button", () => {
    // Act
    const page = confirmationPage({
      approval: summary,
      decision: "reject",
      expiresAt: EXPIRES_AT,
      query: '?decision=reject&expires=1&sig=a"b',
    });

    // Assess
    expect(page).not.toContain("<script>");
    expect(page).not.toContain("<img");
    expect(page).toContain(escapeHtml(HOSTILE_OBJECTIVE));
    expect(page).toContain(escapeHtml(HOSTILE_SUMMARY));
    expect(page).toContain('<form method="post" action="?decision=reject&amp;expires=1&amp;sig=a&quot;b">');
    expect(page.match(/<button/g)).toHaveLength(1);
    expect(page).toContain('<button type="submit" class="reject">Reject</button>');
    expect(page).toContain('<html lang="en">');
    expect(page).toContain('<label for="comment">');
  });

  it.each<[ResultPageInput, RegExp]>([
    [
      { kind: "decided", approval: summary, decision: "approve", decidedBy: "email:<x>", decidedAt: "t" },
      /You approved/,
    ],
    [
      {
        kind: "already_decided",
        approval: summary,
        status: "rejected",
        decidedBy: "api:bob",
        decidedAt: "2026",
      },
      /already rejected by api:bob at 2026/,
    ],
    [{ kind: "link_expired", expiredAt: EXPIRES_AT }, /could be used until 2026-03-01T10:00:00.000Z/],
    [
      {
        kind: "approval_expired",
        approval: summary,
        status: "expired",
        expiresAt: "2026-03-01T10:00:00.000Z",
      },
      /timed out/,
    ],
    [{ kind: "approval_expired", approval: summary, status: "superseded", expiresAt: "x" }, /goal changed/],
    [{ kind: "tampered" }, /changed after it was sent/],
    [{ kind: "not_approver", approver: "<eve>@example.test" }, /&lt;eve&gt;@example.test, which is not on/],
    [{ kind: "malformed", detail: "The link's <sig> is missing" }, /The link&#39;s &lt;sig&gt; is missing/],
    [{ kind: "not_found" }, /does not exist/],
    [{ kind: "error", requestId: "<req>" }, /&lt;req&gt;/],
  ])("says why on the %# result page, escaping what it shows", (input, says) => {
    // Act
    const page = resultPage(input);

    // Assess
    expect(page).toMatch(says);
    expect(page).not.toMatch(/<(script|img|b>now)/);
    if (input.kind !== "decided")
      expect(page).toMatch(/Nothing was decided|changed nothing|could not be processed/);
  });
});
