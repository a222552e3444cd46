import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { approvalIdFromBytes } from "../../../lambdas/core/goal/goal-ids";
import type { Approval } from "../../../lambdas/core/ports/goal-store";
import { ApprovalViewSchema } from "../../../lambdas/handlers/api/contract/response-schemas";
import { aPendingApproval } from "../human/support";
import { apiEvent, aTenant, bodyOf, buildApi, NOW, suiteStoreBackend } from "./api-harness";

describe("approvals routes (GET /approvals, POST /approvals/{approvalId})", () => {
  const backend = suiteStoreBackend();

  /** A pending approval of the tenant, still valid at NOW, with a token of its own. */
  async function aStoredApproval(tenantId: string, overrides: Partial<Approval> = {}): Promise<Approval> {
    const approval = aPendingApproval(`g-${randomUUID()}`, {
      tenantId,
      taskToken: `token-${randomUUID()}-secret`,
      requestedAt: new Date(NOW.getTime() - 60_000).toISOString(),
      expiresAt: new Date(NOW.getTime() + 3_600_000).toISOString(),
      ...overrides,
    });
    await backend.store.putApproval(approval);
    return approval;
  }

  function call(
    tenant: string,
    method: string,
    path: string,
    body?: unknown,
    query?: Record<string, string>,
  ) {
    const built = buildApi(backend.store);
    return built.api(apiEvent({ method, path, body, query, accountId: tenant })).then((result) => ({
      result,
      events: built.publisher.events,
    }));
  }

  describe("GET /approvals", () => {
    it("lists the caller's pending approvals by default, without the task token", async () => {
      // Prepare
      const tenant = aTenant();
      const first = await aStoredApproval(tenant);
      const second = await aStoredApproval(tenant);
      const other = await aStoredApproval(aTenant());

      // Act
      const { result } = await call(tenant, "GET", "/approvals");

      // Assess
      expect(result.statusCode).toBe(200);
      const items = viewItems(bodyOf(result));
      expect(items.map((item) => item.approvalId).sort()).toEqual(
        [first.approvalId, second.approvalId].sort(),
      );
      expect(items.find((item) => item.approvalId === first.approvalId)).toEqual({
        approvalId: first.approvalId,
        goalId: first.goalId,
        runId: first.runId,
        status: "pending",
        action: { kind: first.action.kind, summary: first.action.summary },
        revision: 1,
        requestedAt: first.requestedAt,
        expiresAt: first.expiresAt,
      });
      for (const approval of [first, second, other]) {
        expect(result.body).not.toContain(approval.taskToken);
      }
      expect(result.body).not.toContain("taskToken");
      expect(result.body).not.toContain(other.approvalId);
    });

    it("lists decided approvals with ?status=approved, and refuses an unknown status with the path", async () => {
      // Prepare
      const tenant = aTenant();
      const pending = await aStoredApproval(tenant);
      const approved = await aStoredApproval(tenant);
      await call(tenant, "POST", `/approvals/${approved.approvalId}`, { decision: "approve" });

      // Act
      const listed = await call(tenant, "GET", "/approvals", undefined, { status: "approved" });
      const bad = await call(tenant, "GET", "/approvals", undefined, { status: "maybe" });

      // Assess
      expect(listed.result.statusCode).toBe(200);
      expect(viewItems(bodyOf(listed.result)).map((item) => item.approvalId)).toEqual([approved.approvalId]);
      expect(listed.result.body).not.toContain(pending.approvalId);
      expect(listed.result.body).not.toContain(approved.taskToken);
      expect(bad.result.statusCode).toBe(400);
      expect(bodyOf(bad.result)).toMatchObject({
        error: { code: "ValidationError", issues: [expect.objectContaining({ path: "status" })] },
      });
    });
  });

  describe("POST /approvals/{approvalId}", () => {
    it("decides a pending approval: 200 with the view, one Approval Decided event, no token", async () => {
      // Prepare
      const tenant = aTenant();
      const approval = await aStoredApproval(tenant);

      // Act
      const { result, events } = await call(tenant, "POST", `/approvals/${approval.approvalId}`, {
        decision: "approve",
        comment: "  go ahead  ",
      });

      // Assess
      expect(result.statusCode).toBe(200);
      const decidedBy = `arn:aws:iam::${tenant}:user/tester`;
      expect(bodyOf(result)).toEqual({
        approval: {
          approvalId: approval.approvalId,
          goalId: approval.goalId,
          runId: approval.runId,
          status: "approved",
          action: { kind: "tool", summary: approval.action.summary },
          revision: 1,
          requestedAt: approval.requestedAt,
          expiresAt: approval.expiresAt,
          decision: { decision: "approve", decidedBy, comment: "go ahead", decidedAt: NOW.toISOString() },
        },
      });
      expect(result.body).not.toContain(approval.taskToken);
      expect(events).toEqual([
        {
          detailType: "Approval Decided",
          detail: {
            approvalId: approval.approvalId,
            goalId: approval.goalId,
            decision: "approve",
            decidedBy,
            comment: "go ahead",
            channel: "api",
            decidedAt: NOW.toISOString(),
          },
        },
      ]);
      expect((await backend.store.getApproval(approval.approvalId))?.status).toBe("approved");
    });

    it("answers a second decision 409 ApprovalAlreadyDecided and keeps the first", async () => {
      // Prepare
      const tenant = aTenant();
      const approval = await aStoredApproval(tenant);
      await call(tenant, "POST", `/approvals/${approval.approvalId}`, { decision: "reject" });

      // Act
      const { result, events } = await call(tenant, "POST", `/approvals/${approval.approvalId}`, {
        decision: "approve",
      });

      // Assess
      expect(result.statusCode).toBe(409);
      expect(bodyOf(result)).toMatchObject({
        error: { code: "ApprovalAlreadyDecided", approval: { status: "rejected" } },
      });
      expect(result.body).not.toContain(approval.taskToken);
      expect(events).toEqual([]);
      expect((await backend.store.getApproval(approval.approvalId))?.status).toBe("rejected");
    });

    it("answers an approval past its expiry 410 ApprovalExpired and publishes nothing", async () => {
      // Prepare
      const tenant = aTenant();
      const approval = await aStoredApproval(tenant, {
        requestedAt: new Date(NOW.getTime() - 7_200_000).toISOString(),
        expiresAt: new Date(NOW.getTime() - 1).toISOString(),
      });

      // Act
      const { result, events } = await call(tenant, "POST", `/approvals/${approval.approvalId}`, {
        decision: "approve",
      });

      // Assess
      expect(result.statusCode).toBe(410);
      expect(bodyOf(result)).toMatchObject({
        error: { code: "ApprovalExpired", approval: { status: "expired" } },
      });
      expect(result.body).not.toContain(approval.taskToken);
      expect(events).toEqual([]);
      expect((await backend.store.getApproval(approval.approvalId))?.status).toBe("expired");
    });

    it("answers 404 for another tenant's approval and for an unknown one, and leaves it pending", async () => {
      // Prepare
      const owner = aTenant();
      const approval = await aStoredApproval(owner);

      // Act
      const foreign = await call(aTenant(), "POST", `/approvals/${approval.approvalId}`, {
        decision: "approve",
      });
      const unknown = await call(owner, "POST", `/approvals/${approvalIdFromBytes(randomBytes(16))}`, {
        decision: "approve",
      });

      // Assess
      for (const { result, events } of [foreign, unknown]) {
        expect(result.statusCode).toBe(404);
        expect(bodyOf(result)).toMatchObject({ error: { code: "ApprovalNotFound" } });
        expect(events).toEqual([]);
      }
      expect((await backend.store.getApproval(approval.approvalId))?.status).toBe("pending");
    });

    it("refuses a bad body with 400 and the field paths, deciding nothing", async () => {
      // Prepare
      const tenant = aTenant();
      const approval = await aStoredApproval(tenant);

      // Act
      const { result, events } = await call(tenant, "POST", `/approvals/${approval.approvalId}`, {
        decision: "yes",
        comment: 42,
        extra: true,
      });
      const notJson = await call(tenant, "POST", `/approvals/${approval.approvalId}`, "{not json");

      // Assess
      expect(result.statusCode).toBe(400);
      const issues = (bodyOf(result).error as { issues: { path: string }[] }).issues.map(
        (issue) => issue.path,
      );
      expect(issues.sort()).toEqual(["comment", "decision", "extra"]);
      expect(notJson.result.statusCode).toBe(400);
      expect(events).toEqual([]);
      expect((await backend.store.getApproval(approval.approvalId))?.status).toBe("pending");
    });
  });
});

/** The `items` of a listing, each checked against the view schema (no extra fields). */
function viewItems(body: Record<string, unknown>) {
  return z.array(ApprovalViewSchema).parse(body.items);
}
