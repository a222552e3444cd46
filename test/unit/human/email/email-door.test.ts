import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DynamoDbGoalStore } from "../../../../lambdas/adapters/dynamodb/dynamodb-goal-store";
import { signApprovalLink } from "../../../../lambdas/core/human/email/approval-link";
import { emailApprovers } from "../../../../lambdas/core/human/email/email-approvers";
import { escapeHtml } from "../../../../lambdas/core/human/email/html";
import type { Approval } from "../../../../lambdas/core/ports/goal-store";
import { createEmailDoor, type EmailDoor } from "../../../../lambdas/handlers/human/email/create-email-door";
import {
  APPROVER,
  aPendingApproval,
  aWaitingGoal,
  BASE_URL,
  EXPIRES_AT,
  HOSTILE_OBJECTIVE,
  LINK_SECRET,
  linkEvent,
  NOW,
  RecordingPublisher,
  silentLogger,
  startStore,
  TASK_TOKEN,
} from "./support";

describe("email door (GET confirms, POST decides) on dynalite with the real decide function", () => {
  let backend: Awaited<ReturnType<typeof startStore>>;
  let store: DynamoDbGoalStore;

  beforeAll(async () => {
    backend = await startStore();
    store = backend.store;
  });
  afterAll(() => backend.stop());

  function door(
    now = NOW,
    approvers: readonly string[] = [APPROVER],
  ): { door: EmailDoor; publisher: RecordingPublisher } {
    const publisher = new RecordingPublisher();
    const emailDoor = createEmailDoor({
      goals: store,
      publisher,
      secret: async () => LINK_SECRET,
      approvers: emailApprovers(approvers),
      now: () => now,
      logger: silentLogger(),
    });
    return { door: emailDoor, publisher };
  }

  async function storedApproval(overrides: Partial<Approval> = {}): Promise<Approval> {
    const goal = aWaitingGoal();
    await store.createGoal(goal, []);
    const approval = aPendingApproval(goal.goalId, overrides);
    await store.putApproval(approval);
    return approval;
  }

  const linkFor = (
    approvalId: string,
    decision: "approve" | "reject" = "approve",
    expiresAt = EXPIRES_AT,
    approver = APPROVER,
  ) =>
    signApprovalLink({ baseUrl: BASE_URL, approvalId, decision, expiresAt, approver, secret: LINK_SECRET });

  it("verifies a link signed before the key was rotated with the previous key, and no other", async () => {
    // Prepare: the key was rotated after these links were mailed
    const approval = await storedApproval();
    const publisher = new RecordingPublisher();
    const rotated = createEmailDoor({
      goals: store,
      publisher,
      secret: async () => "the-new-key-after-rotation-0123456789abcdef",
      previousSecret: async () => LINK_SECRET,
      approvers: emailApprovers([APPROVER]),
      now: () => NOW,
      logger: silentLogger(),
    });
    const forged = signApprovalLink({
      baseUrl: BASE_URL,
      approvalId: approval.approvalId,
      decision: "approve",
      expiresAt: EXPIRES_AT,
      approver: APPROVER,
      secret: "a-key-we-never-had-0123456789abcdef0123",
    });

    // Act
    const refused = await rotated(linkEvent("POST", forged));
    const decided = await rotated(linkEvent("POST", linkFor(approval.approvalId)));

    // Assess
    expect(refused.statusCode).toBe(403);
    expect(decided.statusCode).toBe(200);
    expect((await store.getApproval(approval.approvalId))?.status).toBe("approved");
    expect(publisher.events).toHaveLength(1);
  });

  it("GET shows a confirmation page and decides nothing (a mail scanner following the link changes nothing)", async () => {
    // Prepare
    const approval = await storedApproval();
    const { door: emailDoor, publisher } = door();
    const link = linkFor(approval.approvalId);

    // Act
    const first = await emailDoor(linkEvent("GET", link));
    const second = await emailDoor(linkEvent("GET", link));

    // Assess
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(first.headers?.["content-type"]).toBe("text/html; charset=utf-8");
    expect(first.headers?.["referrer-policy"]).toBe("no-referrer");
    expect(first.body).toContain(escapeHtml(HOSTILE_OBJECTIVE));
    expect(first.body).not.toContain("<script>");
    expect(first.body).toContain(`action="?${escapeHtml(new URL(link).search.slice(1))}"`);
    expect((await store.getApproval(approval.approvalId))?.status).toBe("pending");
    expect(publisher.events).toEqual([]);
  });

  it("POST decides once, as email:<the address the link was sent to>, with the form's comment, and publishes Approval Decided", async () => {
    // Prepare
    const approval = await storedApproval();
    const { door: emailDoor, publisher } = door();

    // Act
    const result = await emailDoor(linkEvent("POST", linkFor(approval.approvalId), "comment=ship+it"));

    // Assess
    expect(result.statusCode).toBe(200);
    expect(result.body).toContain("You approved the pending action");
    const stored = await store.getApproval(approval.approvalId);
    expect(stored?.status).toBe("approved");
    expect(stored?.decision).toEqual({
      decision: "approve",
      decidedBy: `email:${APPROVER}`,
      comment: "ship it",
      decidedAt: NOW.toISOString(),
    });
    expect(publisher.events).toEqual([
      {
        detailType: "Approval Decided",
        detail: {
          approvalId: approval.approvalId,
          goalId: approval.goalId,
          decision: "approve",
          decidedBy: `email:${APPROVER}`,
          comment: "ship it",
          channel: "email",
          decidedAt: NOW.toISOString(),
        },
      },
    ]);
  });

  it("a reject link rejects", async () => {
    // Prepare
    const approval = await storedApproval();

    // Act
    const result = await door().door(linkEvent("POST", linkFor(approval.approvalId, "reject")));

    // Assess
    expect(result.statusCode).toBe(200);
    expect((await store.getApproval(approval.approvalId))?.status).toBe("rejected");
  });

  it("a reused link (a second POST, then a GET) is answered 409 'already decided by … at …' and changes nothing", async () => {
    // Prepare
    const approval = await storedApproval();
    const link = linkFor(approval.approvalId);
    await door().door(linkEvent("POST", link));
    const { door: emailDoor } = door(new Date(NOW.getTime() + 60_000));

    // Act
    const again = await emailDoor(linkEvent("POST", linkFor(approval.approvalId, "reject")));
    const reopened = await emailDoor(linkEvent("GET", link));

    // Assess
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain(`already approved by email:${APPROVER} at ${NOW.toISOString()}`);
    expect(reopened.statusCode).toBe(409);
    const stored = await store.getApproval(approval.approvalId);
    expect(stored?.status).toBe("approved");
    expect(stored?.decision?.decidedAt).toBe(NOW.toISOString());
  });

  it.each([
    ["sig", (url: URL) => url.searchParams.set("sig", "A".repeat(43))],
    ["decision", (url: URL) => url.searchParams.set("decision", "reject")],
    [
      "expires",
      (url: URL) => url.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600)),
    ],
    [
      "approvalId",
      (url: URL) => {
        // Another approval id of the same shape: the signature, not the form, must catch it.
        url.pathname = `${url.pathname.slice(0, -1)}${url.pathname.endsWith("0") ? "1" : "0"}`;
      },
    ],
  ])("refuses a link with a changed %s: 403 on GET and POST, nothing decided", async (_field, tamper) => {
    // Prepare
    const approval = await storedApproval();
    const url = new URL(linkFor(approval.approvalId));
    tamper(url);
    const { door: emailDoor, publisher } = door();

    // Act
    const shown = await emailDoor(linkEvent("GET", url.toString()));
    const posted = await emailDoor(linkEvent("POST", url.toString()));

    // Assess
    expect(shown.statusCode).toBe(403);
    expect(posted.statusCode).toBe(403);
    expect(posted.body).toContain("changed after it was sent");
    expect((await store.getApproval(approval.approvalId))?.status).toBe("pending");
    expect(publisher.events).toEqual([]);
  });

  it("refuses an expired link with 410, saying when it expired, and decides nothing", async () => {
    // Prepare
    const approval = await storedApproval();
    const { door: emailDoor } = door(new Date(EXPIRES_AT.getTime() + 1000));

    // Act
    const posted = await emailDoor(linkEvent("POST", linkFor(approval.approvalId)));

    // Assess
    expect(posted.statusCode).toBe(410);
    expect(posted.body).toContain(`could be used until ${EXPIRES_AT.toISOString()}`);
    expect((await store.getApproval(approval.approvalId))?.status).toBe("pending");
  });

  it("answers 410 for an approval whose request timed out, and the POST marks it expired", async () => {
    // Prepare: the link is still valid, but the approval's own expiry has passed
    const approval = await storedApproval({ expiresAt: "2026-03-01T09:10:00.000Z" });
    const { door: emailDoor, publisher } = door();
    const link = linkFor(approval.approvalId);

    // Act
    const shown = await emailDoor(linkEvent("GET", link));
    const statusAfterGet = (await store.getApproval(approval.approvalId))?.status;
    const posted = await emailDoor(linkEvent("POST", link));

    // Assess
    expect(shown.statusCode).toBe(410);
    expect(statusAfterGet).toBe("pending");
    expect(posted.statusCode).toBe(410);
    expect(posted.body).toContain("timed out");
    expect((await store.getApproval(approval.approvalId))?.status).toBe("expired");
    expect(publisher.events).toEqual([]);
  });

  it.each([
    ["removed from the approver list", [] as string[]],
    ["never on the approver list", ["someone-else@example.test"]],
  ])(
    "refuses (403) a correctly signed link to an address %s, on GET and POST, and changes nothing",
    async (_case, approvers) => {
      // Prepare
      const approval = await storedApproval();
      const { door: emailDoor, publisher } = door(NOW, approvers);
      const link = linkFor(approval.approvalId);

      // Act
      const shown = await emailDoor(linkEvent("GET", link));
      const posted = await emailDoor(linkEvent("POST", link, "comment=ok"));

      // Assess
      expect(shown.statusCode).toBe(403);
      expect(posted.statusCode).toBe(403);
      expect(posted.body).toContain("approvals.email.approvers");
      expect(posted.body).toContain(APPROVER);
      expect(await store.getApproval(approval.approvalId)).toEqual(approval);
      expect(publisher.events).toEqual([]);
    },
  );

  it("decides as the approver the link names, whatever address the goal names", async () => {
    // Prepare: the goal names APPROVER, the link went to another configured approver
    const approval = await storedApproval();
    const other = "Bob@Example.test";
    const { door: emailDoor } = door(NOW, [APPROVER, "bob@example.test"]);

    // Act
    const posted = await emailDoor(
      linkEvent("POST", linkFor(approval.approvalId, "approve", EXPIRES_AT, other)),
    );

    // Assess
    expect(posted.statusCode).toBe(200);
    expect((await store.getApproval(approval.approvalId))?.decision?.decidedBy).toBe(`email:${other}`);
  });

  it("answers 400 for an incomplete link and 404 for a correctly signed link to no approval", async () => {
    // Prepare
    const url = new URL(linkFor(`ap-${"9".repeat(32)}`));
    const { door: emailDoor } = door();

    // Act
    const unknown = await emailDoor(linkEvent("GET", url.toString()));
    url.searchParams.delete("sig");
    const incomplete = await emailDoor(linkEvent("GET", url.toString()));
    const wrongMethod = await emailDoor(linkEvent("PUT", url.toString()));

    // Assess
    expect(unknown.statusCode).toBe(404);
    expect(incomplete.statusCode).toBe(400);
    expect(incomplete.body).toContain("signature is missing");
    expect(wrongMethod.statusCode).toBe(405);
  });

  it("never shows the task token: not in a link, nor in any page", async () => {
    // Prepare
    const approval = await storedApproval();
    const link = linkFor(approval.approvalId);
    const { door: emailDoor } = door();

    // Act
    const pages = [
      await emailDoor(linkEvent("GET", link)),
      await emailDoor(linkEvent("POST", link)),
      await emailDoor(linkEvent("POST", link)),
    ];

    // Assess
    expect(link).not.toContain(TASK_TOKEN);
    for (const page of pages) expect(JSON.stringify(page)).not.toContain(TASK_TOKEN);
  });
});
