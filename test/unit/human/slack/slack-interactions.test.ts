import { Logger } from "@aws-lambda-powertools/logger";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GoalStoreUnavailableError } from "../../../../lambdas/adapters/shared/store-errors";
import { ValidationError } from "../../../../lambdas/core/goal/errors";
import { waitFor } from "../../../../lambdas/core/goal/goal-lifecycle";
import type { Approval } from "../../../../lambdas/core/ports/goal-store";
import {
  aPendingApproval,
  buildDoor,
  clickBody,
  createGoal,
  jsonBody,
  NOW,
  NOW_SECONDS,
  SECRET_TOKEN,
  type SlackTable,
  signAsSlack,
  slackEvent,
  startSlackTable,
} from "./support";

const INTERACTIONS = "/slack/interactions";

describe("POST /slack/interactions", () => {
  let table: SlackTable;

  beforeAll(async () => {
    table = await startSlackTable();
  });
  afterAll(() => table.stop());

  /** A goal (of `tenantId`, by default TENANT) waiting for a pending approval, as the gate leaves it. */
  async function waitingApproval(tenantId?: string): Promise<Approval> {
    const goal = await createGoal(table, tenantId);
    const approval = aPendingApproval(goal.goalId, goal.tenantId);
    await table.adapters.goals.putApproval(approval);
    const stored = await table.adapters.goals.getGoal(goal.goalId);
    if (!stored) throw new Error("goal vanished");
    const change = waitFor(
      stored.record,
      { kind: "approval", approvalId: approval.approvalId, reason: "irreversible tool notify" },
      { eventType: "Approval Decided", approvalId: approval.approvalId, revision: 1 },
      NOW,
    );
    await table.adapters.goals.commit(change.record, stored.version, change.events);
    return approval;
  }

  it("decides on Approve, publishes Approval Decided and answers the updated message without buttons", async () => {
    // Prepare
    const approval = await waitingApproval();
    const { door, publisher, responder } = buildDoor(table);

    // Act
    const result = await door(
      slackEvent({ path: INTERACTIONS, body: clickBody("approve", approval.approvalId) }),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    const stored = await table.adapters.goals.getApproval(approval.approvalId);
    expect(stored).toMatchObject({
      status: "approved",
      decision: { decision: "approve", decidedBy: "slack:U0ANA", decidedAt: NOW.toISOString() },
    });
    expect(publisher.events).toEqual([
      {
        detailType: "Approval Decided",
        detail: {
          approvalId: approval.approvalId,
          goalId: approval.goalId,
          decision: "approve",
          decidedBy: "slack:U0ANA",
          channel: "slack",
          decidedAt: NOW.toISOString(),
        },
      },
    ]);
    const body = jsonBody(result);
    expect(body.replace_original).toBe(true);
    const blocks = JSON.stringify(body.blocks);
    expect(blocks).toContain("*Approved* by <@U0ANA>");
    expect(blocks).not.toContain('"type":"actions"');
    expect(responder.posts).toEqual([{ url: "https://hooks.slack.com/actions/T0TEAM/1/abc", message: body }]);
    expect(result.body).not.toContain(SECRET_TOKEN);
  });

  it("answers a second click with the decision already taken, and publishes nothing more", async () => {
    // Prepare
    const approval = await waitingApproval();
    const { door, publisher } = buildDoor(table, { approverUserIds: new Set(["U0ANA", "U0BEN"]) });
    await door(slackEvent({ path: INTERACTIONS, body: clickBody("approve", approval.approvalId) }));

    // Act: another approver clicks Reject on the same message, a second later (a new signature)
    const later = String(Number(NOW_SECONDS) + 1);
    const result = await door(
      slackEvent({
        path: INTERACTIONS,
        body: clickBody("reject", approval.approvalId, "U0BEN"),
        timestamp: later,
      }),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.stringify(jsonBody(result).blocks)).toContain(
      "Already decided: :white_check_mark: *Approved* by <@U0ANA>",
    );
    expect(publisher.events).toHaveLength(1);
    expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("approved");
  });

  it("records a Reject as rejected", async () => {
    // Prepare
    const approval = await waitingApproval();
    const { door, publisher } = buildDoor(table);

    // Act
    const result = await door(
      slackEvent({ path: INTERACTIONS, body: clickBody("reject", approval.approvalId) }),
    );

    // Assess
    expect(JSON.stringify(jsonBody(result).blocks)).toContain(":x: *Rejected* by <@U0ANA>");
    expect(publisher.events.map((event) => event.detail)).toEqual([
      expect.objectContaining({ decision: "reject", channel: "slack" }),
    ]);
  });

  it.each([
    ["a wrong signature", { signature: signAsSlack("another-secret", NOW_SECONDS, "x") }, "bad signature"],
    ["a stale timestamp", { timestamp: String(Number(NOW_SECONDS) - 301) }, "stale timestamp"],
    ["a timestamp from the future", { timestamp: String(Number(NOW_SECONDS) + 301) }, "stale timestamp"],
  ])("refuses %s with 401 and changes nothing", async (_name, change, reason) => {
    // Prepare
    const approval = await waitingApproval();
    const { door, publisher } = buildDoor(table);

    // Act
    const result = await door(
      slackEvent({ path: INTERACTIONS, body: clickBody("approve", approval.approvalId), ...change }),
    );

    // Assess
    expect(result.statusCode).toBe(401);
    expect(jsonBody(result)).toMatchObject({ error: { code: "SlackSignatureInvalid", reason } });
    expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("pending");
    expect(publisher.events).toEqual([]);
  });

  it("accepts a click signed with the previous signing secret inside the rotation window, and refuses it after", async () => {
    // Prepare: the secret was rotated; Slack still signs with the old one
    const previousSecret = "the-secret-before-rotation";
    const door = (acceptedUntil: Date) =>
      buildDoor(table, {
        previousSigningSecret: async () => ({ secret: previousSecret, acceptedUntil }),
      });
    const inside = door(new Date(NOW.getTime() + 60_000));
    const outside = door(new Date(NOW.getTime() - 1));
    const [early, late] = [await waitingApproval(), await waitingApproval()];

    // Act
    const accepted = await inside.door(
      slackEvent({
        path: INTERACTIONS,
        body: clickBody("approve", early.approvalId),
        secret: previousSecret,
      }),
    );
    const refused = await outside.door(
      slackEvent({ path: INTERACTIONS, body: clickBody("approve", late.approvalId), secret: previousSecret }),
    );

    // Assess
    expect(accepted.statusCode).toBe(200);
    expect((await table.adapters.goals.getApproval(early.approvalId))?.status).toBe("approved");
    expect(refused.statusCode).toBe(401);
    expect(jsonBody(refused)).toMatchObject({ error: { reason: "bad signature" } });
    expect(outside.publisher.events).toEqual([]);
    expect((await table.adapters.goals.getApproval(late.approvalId))?.status).toBe("pending");
  });

  it("refuses a replayed body with 401 even on another instance, and changes nothing", async () => {
    // Prepare: a signed Reject is delivered and decides; an eavesdropper keeps the request
    const approval = await waitingApproval();
    const captured = slackEvent({ path: INTERACTIONS, body: clickBody("reject", approval.approvalId) });
    const first = buildDoor(table);
    await first.door(captured);
    const other = buildDoor(table);

    // Act: the same bytes, the same headers, within the five minutes, to another Lambda instance
    const replay = await other.door(captured);

    // Assess
    expect(replay.statusCode).toBe(401);
    expect(jsonBody(replay)).toMatchObject({ error: { reason: "replayed" } });
    expect(other.publisher.events).toEqual([]);
    expect((await table.adapters.goals.getApproval(approval.approvalId))?.decision?.decidedAt).toBe(
      NOW.toISOString(),
    );
  });

  it("answers an unknown approval with a message saying so", async () => {
    // Prepare
    const { door, publisher } = buildDoor(table);

    // Act
    const result = await door(
      slackEvent({ path: INTERACTIONS, body: clickBody("approve", `ap-${"0".repeat(32)}`) }),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.stringify(jsonBody(result).blocks)).toContain("does not exist");
    expect(publisher.events).toEqual([]);
  });

  it.each([
    ["not on the approver list", new Set(["U0ANA"]), "U0MALLORY"],
    ["clicking where no approver is configured", new Set<string>(), "U0ANA"],
  ])(
    "refuses a click from a user %s with 403, tells them why, and changes nothing",
    async (_name, approvers, user) => {
      // Prepare
      const approval = await waitingApproval();
      const { door, publisher, responder } = buildDoor(table, { approverUserIds: approvers });

      // Act
      const result = await door(
        slackEvent({ path: INTERACTIONS, body: clickBody("approve", approval.approvalId, user) }),
      );

      // Assess
      expect(result.statusCode).toBe(403);
      const body = jsonBody(result);
      expect(body).toMatchObject({ response_type: "ephemeral", replace_original: false });
      expect(String(body.text)).toContain(user);
      expect(String(body.text)).toContain("approvals.slack.approverUserIds");
      expect(responder.posts).toEqual([
        { url: "https://hooks.slack.com/actions/T0TEAM/1/abc", message: body },
      ]);
      const stored = await table.adapters.goals.getApproval(approval.approvalId);
      expect(stored?.status).toBe("pending");
      expect(stored?.decision).toBeUndefined();
      expect((await table.adapters.goals.getGoal(approval.goalId))?.record.status).toBe("waiting");
      expect(publisher.events).toEqual([]);
    },
  );

  it("treats another tenant's approval as unknown: the workspace is bound to one tenant", async () => {
    // Prepare
    const approval = await waitingApproval();
    const { door, publisher } = buildDoor(table, { tenantId: "999999999999" });

    // Act
    const result = await door(
      slackEvent({ path: INTERACTIONS, body: clickBody("approve", approval.approvalId) }),
    );

    // Assess
    expect(JSON.stringify(jsonBody(result).blocks)).toContain("does not exist");
    expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("pending");
    expect(publisher.events).toEqual([]);
  });

  describe("with a channel bound to a tenant of its own (approvals.slack.channelTenants)", () => {
    const TEAM_A = "team-a";
    const TEAM_A_CHANNEL = "C0TEAMA";
    const channelTenants = new Map([[TEAM_A_CHANNEL, TEAM_A]]);
    const URL = "https://hooks.slack.com/actions/T0TEAM/1/abc";

    it("decides the channel's tenant's approval from that channel", async () => {
      // Prepare
      const approval = await waitingApproval(TEAM_A);
      const { door, publisher } = buildDoor(table, { channelTenants });

      // Act
      const result = await door(
        slackEvent({
          path: INTERACTIONS,
          body: clickBody("approve", approval.approvalId, "U0ANA", URL, TEAM_A_CHANNEL),
        }),
      );

      // Assess
      expect(result.statusCode).toBe(200);
      expect(JSON.stringify(jsonBody(result).blocks)).not.toContain("does not exist");
      expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("approved");
      expect(publisher.events.map((event) => event.detailType)).toEqual(["Approval Decided"]);
    });

    it("answers the channel's tenant's approval as unknown from any other channel, which acts for the workspace's tenant", async () => {
      // Prepare
      const approval = await waitingApproval(TEAM_A);
      const { door, publisher } = buildDoor(table, { channelTenants });

      // Act
      const result = await door(
        slackEvent({
          path: INTERACTIONS,
          body: clickBody("approve", approval.approvalId, "U0ANA", URL, "C0OPS"),
        }),
      );

      // Assess
      expect(JSON.stringify(jsonBody(result).blocks)).toContain("does not exist");
      expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("pending");
      expect(publisher.events).toEqual([]);
    });

    it("answers the workspace's tenant's approval as unknown from the bound channel", async () => {
      // Prepare
      const approval = await waitingApproval();
      const { door, publisher } = buildDoor(table, { channelTenants });

      // Act
      const result = await door(
        slackEvent({
          path: INTERACTIONS,
          body: clickBody("reject", approval.approvalId, "U0ANA", URL, TEAM_A_CHANNEL),
        }),
      );

      // Assess
      expect(JSON.stringify(jsonBody(result).blocks)).toContain("does not exist");
      expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("pending");
      expect(publisher.events).toEqual([]);
    });
  });

  it("acknowledges interactions it does not handle with an empty 200", async () => {
    // Prepare
    const { door } = buildDoor(table);
    const body = new URLSearchParams({
      payload: JSON.stringify({ type: "shortcut", callback_id: "x" }),
    }).toString();

    // Act
    const result = await door(slackEvent({ path: INTERACTIONS, body }));

    // Assess
    expect(result).toMatchObject({ statusCode: 200, body: "" });
  });

  it("still answers with the decision when replacing the message through response_url fails", async () => {
    // Prepare
    const approval = await waitingApproval();
    const { door } = buildDoor(table, {
      responder: {
        respond: () => Promise.reject(new Error("hooks.slack.com timed out")),
      },
    });

    // Act
    const result = await door(
      slackEvent({ path: INTERACTIONS, body: clickBody("approve", approval.approvalId) }),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.stringify(jsonBody(result).blocks)).toContain("*Approved*");
  });

  it.each([
    ["a javascript: URL", "javascript:alert(1)"],
    ["another host", "https://attacker.example/actions/T0TEAM/1/abc"],
    ["a look-alike host", "https://hooks.slack.com.attacker.example/actions/1"],
    ["plain http", "http://hooks.slack.com/actions/T0TEAM/1/abc"],
    ["credentials in the URL", "https://user:pass@hooks.slack.com/actions/T0TEAM/1/abc"],
    ["another port", "https://hooks.slack.com:8443/actions/T0TEAM/1/abc"],
  ])(
    "refuses a click whose response_url is %s: 400, logged, nothing decided or posted",
    async (_name, url) => {
      // Prepare
      const approval = await waitingApproval();
      const logger = new Logger({ serviceName: "slack-door-test", logLevel: "SILENT" });
      const warned = vi.spyOn(logger, "warn");
      const { door, publisher, responder } = buildDoor(table, { logger });

      // Act
      const result = await door(
        slackEvent({ path: INTERACTIONS, body: clickBody("approve", approval.approvalId, "U0ANA", url) }),
      );

      // Assess
      expect(result.statusCode).toBe(400);
      expect(String(jsonBody(result).text)).toContain("not on Slack's hosts");
      expect(warned).toHaveBeenCalledWith(expect.stringContaining("response_url"), expect.anything());
      expect((await table.adapters.goals.getApproval(approval.approvalId))?.status).toBe("pending");
      expect(publisher.events).toEqual([]);
      expect(responder.posts).toEqual([]);
    },
  );

  it("posts to a GovSlack response_url too", async () => {
    // Prepare
    const approval = await waitingApproval();
    const { door, responder } = buildDoor(table);
    const url = "https://hooks.slack-gov.com/actions/T0TEAM/1/abc";

    // Act
    const result = await door(
      slackEvent({ path: INTERACTIONS, body: clickBody("approve", approval.approvalId, "U0ANA", url) }),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    expect(responder.posts.map((post) => post.url)).toEqual([url]);
  });

  it.each([
    ["2,040 characters", `ap-${"0".repeat(2037)}`],
    ["a key separator", "ap|1"],
    ["an upper-case id", `AP-${"A".repeat(32)}`],
  ])("refuses a button whose value is not an approval id (%s) as the refusal it is", async (_name, value) => {
    // Prepare
    const { door, publisher, responder } = buildDoor(table);

    // Act
    const result = await door(slackEvent({ path: INTERACTIONS, body: clickBody("approve", value) }));

    // Assess
    expect(result.statusCode).toBe(400);
    const text = String(jsonBody(result).text);
    expect(text).toContain("does not carry an approval id");
    expect(text).not.toContain("try again");
    expect(publisher.events).toEqual([]);
    expect(responder.posts).toEqual([]);
  });

  it.each([
    [
      "bad input the core refused",
      new ValidationError("Invalid decision: comment: too long", []),
      "refused this",
      false,
      "1",
    ],
    ["a store that is down", new GoalStoreUnavailableError("throttled"), "try again", true, "2"],
  ])("answers %s as what it is: a refusal, or a safe retry", async (_name, failure, says, retry, digit) => {
    // Prepare
    const { door } = buildDoor(table);
    const getApproval = vi.spyOn(table.adapters.goals, "getApproval").mockRejectedValueOnce(failure);

    // Act
    const result = await door(
      slackEvent({ path: INTERACTIONS, body: clickBody("approve", `ap-${digit.repeat(32)}`) }),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    const text = String(jsonBody(result).text);
    expect(text).toContain(says);
    expect(text.includes("try again")).toBe(retry);
    getApproval.mockRestore();
  });
});
