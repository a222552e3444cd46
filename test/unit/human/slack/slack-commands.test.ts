import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  buildDoor,
  commandBody,
  createGoal,
  jsonBody,
  NOW,
  NOW_SECONDS,
  type SlackTable,
  slackEvent,
  startSlackTable,
} from "./support";

const COMMANDS = "/slack/commands";

describe("POST /slack/commands (/goal)", () => {
  let table: SlackTable;

  beforeAll(async () => {
    table = await startSlackTable();
  });
  afterAll(() => table.stop());

  it("answers `<goalId> status` with the goal's snapshot, to the asker only", async () => {
    // Prepare
    const goal = await createGoal(table);
    const { door, publisher } = buildDoor(table);

    // Act
    const result = await door(slackEvent({ path: COMMANDS, body: commandBody(`${goal.goalId} status`) }));

    // Assess
    expect(result.statusCode).toBe(200);
    const body = jsonBody(result);
    expect(body.response_type).toBe("ephemeral");
    expect(body.text).toBe(`Goal ${goal.goalId} is running (step 0, revision 1)`);
    const blocks = JSON.stringify(body.blocks);
    expect(blocks).toContain("Announce release 1.2 to &lt;!channel&gt; in #ops");
    expect(blocks).toContain("Unsatisfied: announced");
    expect(publisher.events).toEqual([]);
  });

  it("publishes Revision Requested for `add-constraint <text>` and says so in the channel", async () => {
    // Prepare
    const goal = await createGoal(table);
    const { door, publisher } = buildDoor(table, { newRevisionId: () => "rev-1" });

    // Act
    const result = await door(
      slackEvent({
        path: COMMANDS,
        body: commandBody(`${goal.goalId} add-constraint  Never post before 9am `),
      }),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    expect(publisher.events).toEqual([
      {
        detailType: "Revision Requested",
        detail: {
          goalId: goal.goalId,
          revisionId: "rev-1",
          type: "add_constraint",
          content: "Never post before 9am",
          requestedBy: "slack:U0ANA",
          channel: "slack",
          requestedAt: NOW.toISOString(),
        },
      },
    ]);
    expect(jsonBody(result)).toMatchObject({ response_type: "in_channel" });
    expect(String(jsonBody(result).text)).toContain("`add_constraint` revision");
  });

  it("publishes a redirect with the text verbatim", async () => {
    // Prepare
    const goal = await createGoal(table);
    const { door, publisher } = buildDoor(table);

    // Act
    await door(
      slackEvent({
        path: COMMANDS,
        body: commandBody(`${goal.goalId} REDIRECT announce in #release instead`),
      }),
    );

    // Assess
    expect(publisher.events.map((event) => event.detail)).toEqual([
      expect.objectContaining({ type: "redirect", content: "announce in #release instead" }),
    ]);
  });

  it.each([
    ["no goal id", "status", "the goal id comes first"],
    ["an unknown subcommand", "g-abc pause", "unknown subcommand 'pause'"],
    ["add-constraint without text", "g-abc add-constraint", "missing text for add-constraint"],
    ["nothing at all", "", "the goal id comes first"],
  ])("answers %s with the valid forms and publishes nothing", async (_name, text, problem) => {
    // Prepare
    const { door, publisher } = buildDoor(table);

    // Act
    const result = await door(slackEvent({ path: COMMANDS, body: commandBody(text) }));

    // Assess
    expect(result.statusCode).toBe(200);
    const body = jsonBody(result);
    expect(body.response_type).toBe("ephemeral");
    expect(String(body.text)).toContain(problem);
    expect(String(body.text)).toContain("/goal <goalId> add-constraint <text>");
    expect(publisher.events).toEqual([]);
  });

  it("answers an unknown goal, and another tenant's goal, the same way", async () => {
    // Prepare
    const goal = await createGoal(table, "111111111111");
    const { door, publisher } = buildDoor(table, { tenantId: "222222222222" });

    // Act
    const unknown = await door(slackEvent({ path: COMMANDS, body: commandBody("g-nothere status") }));
    const foreign = await door(
      slackEvent({
        path: COMMANDS,
        body: commandBody(`${goal.goalId} redirect x`),
        timestamp: String(Number(NOW_SECONDS) - 1),
      }),
    );

    // Assess
    expect(String(jsonBody(unknown).text)).toContain("does not exist");
    expect(String(jsonBody(foreign).text)).toContain("does not exist");
    expect(publisher.events).toEqual([]);
  });

  it("acts for a bound channel's tenant there, and for the workspace's tenant everywhere else", async () => {
    // Prepare
    const teamGoal = await createGoal(table, "team-a");
    const workspaceGoal = await createGoal(table);
    const { door, publisher } = buildDoor(table, { channelTenants: new Map([["C0TEAMA", "team-a"]]) });
    const url = "https://hooks.slack.com/commands/T0TEAM/1/abc";
    const ask = (text: string, channel: string, secondsAgo: number) =>
      door(
        slackEvent({
          path: COMMANDS,
          body: commandBody(text, "U0ANA", url, channel),
          timestamp: String(Number(NOW_SECONDS) - secondsAgo),
        }),
      );

    // Act
    const teamFromItsChannel = await ask(`${teamGoal.goalId} status`, "C0TEAMA", 0);
    const teamFromElsewhere = await ask(`${teamGoal.goalId} add-constraint no Fridays`, "C0OPS", 1);
    const workspaceFromTeamChannel = await ask(`${workspaceGoal.goalId} status`, "C0TEAMA", 2);
    const workspaceFromElsewhere = await ask(`${workspaceGoal.goalId} status`, "C0OPS", 3);

    // Assess
    expect(jsonBody(teamFromItsChannel).text).toBe(`Goal ${teamGoal.goalId} is running (step 0, revision 1)`);
    expect(String(jsonBody(teamFromElsewhere).text)).toContain("does not exist");
    expect(String(jsonBody(workspaceFromTeamChannel).text)).toContain("does not exist");
    expect(jsonBody(workspaceFromElsewhere).text).toBe(
      `Goal ${workspaceGoal.goalId} is running (step 0, revision 1)`,
    );
    expect(publisher.events).toEqual([]);
  });

  it.each(["status", "add-constraint never deploy on Fridays"])(
    "refuses `%s` from a user not on the approver list with 403, and publishes nothing",
    async (command) => {
      // Prepare
      const goal = await createGoal(table);
      const { door, publisher, responder } = buildDoor(table);

      // Act
      const result = await door(
        slackEvent({ path: COMMANDS, body: commandBody(`${goal.goalId} ${command}`, "U0MALLORY") }),
      );

      // Assess
      expect(result.statusCode).toBe(403);
      const body = jsonBody(result);
      expect(String(body.text)).toContain("not on this deployment's approver list");
      expect(JSON.stringify(body)).not.toContain(goal.spec.objective);
      expect(responder.posts.map((post) => post.message)).toEqual([body]);
      expect(publisher.events).toEqual([]);
    },
  );

  it("refuses an unsigned command with 401 and publishes nothing", async () => {
    // Prepare
    const goal = await createGoal(table);
    const { door, publisher } = buildDoor(table);

    // Act
    const result = await door(
      slackEvent({ path: COMMANDS, body: commandBody(`${goal.goalId} redirect x`), signature: "v0=forged" }),
    );

    // Assess
    expect(result.statusCode).toBe(401);
    expect(publisher.events).toEqual([]);
  });

  it("refuses a command whose response_url is not Slack's with 400, publishing and posting nothing", async () => {
    // Prepare
    const goal = await createGoal(table);
    const { door, publisher, responder } = buildDoor(table);

    // Act
    const result = await door(
      slackEvent({
        path: COMMANDS,
        body: commandBody(`${goal.goalId} redirect elsewhere`, "U0ANA", "javascript:alert(1)"),
      }),
    );

    // Assess
    expect(result.statusCode).toBe(400);
    expect(String(jsonBody(result).text)).toContain("not on Slack's hosts");
    expect(publisher.events).toEqual([]);
    expect(responder.posts).toEqual([]);
  });

  it.each([
    ["2,044 characters", `g-${"0".repeat(2042)}`],
    ["a goal id of the wrong form", "goal-1"],
  ])("answers a goal id of %s as unknown, never as 'try again', reading no key", async (_name, goalId) => {
    // Prepare
    const { door, publisher } = buildDoor(table);
    const getGoal = vi.spyOn(table.adapters.goals, "getGoal");

    // Act
    const result = await door(slackEvent({ path: COMMANDS, body: commandBody(`${goalId} status`) }));

    // Assess
    expect(result.statusCode).toBe(200);
    const text = String(jsonBody(result).text);
    expect(text).not.toContain("try again");
    expect(text.length).toBeLessThan(1000);
    expect(getGoal).not.toHaveBeenCalled();
    expect(publisher.events).toEqual([]);
    getGoal.mockRestore();
  });
});
