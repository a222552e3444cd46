import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalEvent } from "../../lambdas/core/goal/goal-event";
import type { ApiFetch } from "../../lib/client/index";
import { startConsoleServer } from "../../lib/local/cli/console-server";
import { REACT_SIX } from "../e2e/fork-goals";
import { type E2eStack, startE2eStack } from "../e2e/local-stack-harness";
import { launchChromium, SCREENSHOTS } from "./browser";

/** axe-core's browser build, injected into each page the accessibility check reads. */
const AXE_SCRIPT = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/** `notify` to ops, irreversible: the goal waits for an approval before it runs. */
function notifyGoal(model: string) {
  return {
    objective: "Tell ops about the release",
    successChecks: [
      {
        id: "ops-told",
        description: "notify succeeded",
        verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
      },
    ],
    tools: ["notify"],
    limits: { maxSteps: 10 },
    pattern: "react",
    models: { default: `scripted:${model}` },
  };
}

describe("the web console in headless Chromium, on the local stack", () => {
  let e2e: E2eStack;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let page: Page;
  /** Every request the page made and every text it was answered: no task token may be in any. */
  const seenByPage: string[] = [];

  beforeAll(async () => {
    // A stack of its own, not the shared one (sharedE2eStack): the accessibility check opens the
    // stack's oldest completed goal, and the token check reads every token the stack handed out.
    e2e = await startE2eStack();
    ({ browser, close: closeBrowser } = await launchChromium());
    page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    page.on("response", async (response) => {
      seenByPage.push(response.url());
      const type = response.headers()["content-type"] ?? "";
      if (type.includes("json") || type.includes("event-stream")) {
        seenByPage.push(await response.text().catch(() => ""));
      }
    });
  });

  afterAll(async () => {
    await closeBrowser?.();
    await e2e?.stop();
  });

  const consoleUrl = (hash: string) => `${e2e.stack.apiUrl}/console#${hash}`;

  /** Follows the goal's events until one of `type` is committed. */
  async function untilEvent(goalId: string, type: string): Promise<GoalEvent> {
    for await (const event of e2e.client.watch(goalId)) if (event.type === type) return event;
    throw new Error(`goal ${goalId} ended without a ${type} event`);
  }

  it("submits a goal from the form, watches it complete live, and shows its evidence", async () => {
    // Act
    await page.goto(consoleUrl("/goals"));
    await page.fill("[name=objective]", "Write a short release summary for goal-loops 2.0 to summary.md.");
    await page.selectOption("[name=pattern]", "react");
    await page.fill("[name='successChecks.0.id']", "summary-written");
    await page.fill("[name='successChecks.0.description']", "summary.md exists and names version 2.0");
    await page.fill("[name='successChecks.0.verify.path']", "summary.md");
    await page.fill("[name='successChecks.0.verify.contains']", "2.0");
    await page.fill("[name=model]", "scripted:write-release-summary");
    await page.screenshot({ path: join(SCREENSHOTS, "new-goal-form.png"), fullPage: true });
    await page.click("button[type=submit]");

    // Assess: the page moves to the goal, which completes live, with the artifact as evidence.
    await page.waitForURL(/#\/goals\/g-/);
    await page.waitForSelector("[data-testid=goal-status]:text('completed')", { timeout: 60_000 });
    const evidence = await page.textContent("[data-testid='evidence-summary-written']");
    expect(evidence).toMatch(/artifact summary\.md sha256 [0-9a-f]{16}/);
    const eventTypes = await page.$$eval("[data-testid=events] li", (items) =>
      items.map((item) => item.textContent),
    );
    expect(eventTypes.some((text) => text?.includes("goal.completed"))).toBe(true);
    expect(await page.textContent("[data-testid=turns]")).toMatch(/tools: workspace_write/);
    // The deployed version the goal runs on, as GET /goals/{id} names it (issue 35).
    const goalId = /#\/goals\/(g-[0-9a-z]+)/.exec(page.url())?.[1] ?? "";
    const { version } = await e2e.client.getGoal(goalId);
    expect(version).toEqual(expect.any(String));
    expect(await page.textContent("[data-testid=goal-version]")).toBe(version);
    await page.click("text=State history");
    await page.waitForSelector("[data-testid=run-history] tr");
    expect(await page.textContent("[data-testid=run-history]")).toMatch(/ExecutionSucceeded/);
    await page.screenshot({ path: join(SCREENSHOTS, "goal.png"), fullPage: true });
    await page.goto(consoleUrl("/goals"));
    await page.waitForSelector("[data-testid=goals] tr[data-goal]");
    await page.screenshot({ path: join(SCREENSHOTS, "goals.png"), fullPage: true });
  }, 120_000);

  it("shows a GoalSpec schema error and the API's field error at the field", async () => {
    // Act: an empty artifact path breaks the JSON Schema; duplicate check ids pass it, but not the API.
    await page.goto(consoleUrl("/goals"));
    await page.fill("[name=objective]", "Two checks with one id");
    await page.fill("[name='successChecks.0.description']", "a file");
    await page.click("button[type=submit]");
    const schemaError = await page.textContent("[data-error-for='successChecks.0.verify.path']");
    await page.fill("[name='successChecks.0.verify.path']", "a.md");
    await page.click("text=Add a check");
    await page.fill("[name='successChecks.1.id']", "check-1");
    await page.fill("[name='successChecks.1.description']", "another file");
    await page.fill("[name='successChecks.1.verify.path']", "b.md");
    await page.click("button[type=submit]");
    await page.waitForSelector("[data-error-for='successChecks.1.id']");
    const apiError = await page.textContent("[data-error-for='successChecks.1.id']");
    await page.screenshot({ path: join(SCREENSHOTS, "form-errors.png"), fullPage: true });

    // Assess
    expect(schemaError).toBeTruthy();
    expect(apiError).toMatch(/duplicate success check id 'check-1'/);
    expect(await page.textContent("[role=alert]")).toMatch(/400 ValidationError/);
  }, 60_000);

  it("approves a gated notify from the inbox, which runs once; a second decision shows 409 plainly", async () => {
    // Prepare
    const { goalId } = await e2e.client.submitGoal(notifyGoal("notify-needs-approval"));
    await untilEvent(goalId, "approval.requested");

    // Act
    await page.goto(consoleUrl("/approvals"));
    const item = page.locator(`li.approval:has(a[href='#/goals/${goalId}'])`);
    await item.waitFor();
    const shown = await item.textContent();
    await page.screenshot({ path: join(SCREENSHOTS, "approvals.png"), fullPage: true });
    await item.locator("[name=comment]").fill("ship it");
    await item.getByRole("button", { name: "Approve", exact: true }).click();
    await item.locator(".decision").waitFor();
    const decided = await item.locator(".decision").textContent();
    await untilEvent(goalId, "goal.completed");
    await item.getByRole("button", { name: "Approve", exact: true }).click();
    await item.locator(".decision:has-text('409')").waitFor();
    const again = await item.locator(".decision").textContent();

    // Assess: the exact action (tool and input), its revision and expiry were on the page.
    expect(shown).toContain('"channel": "ops"');
    expect(shown).toContain('"message": "release 2.1 is out"');
    expect(shown).toMatch(/revision 1/);
    expect(shown).toMatch(/expires/);
    expect(decided).toBe("approved");
    expect(again).toMatch(/409 Already decided/);
    const outbox = (await e2e.stack.readOutbox()).filter(
      (entry) => entry.goalId === goalId && entry.channel === "ops",
    );
    expect(outbox).toHaveLength(1);
  }, 90_000);

  it("redirects a running goal from the page and shows the new contract", async () => {
    // Prepare: a goal waiting for its notify to ops.
    const { goalId } = await e2e.client.submitGoal(notifyGoal("redirect-with-checks"));
    const requested = await untilEvent(goalId, "approval.requested");

    // Act: redirect with a new check, then approve the pending call so the goal reaches a step boundary.
    await page.goto(consoleUrl(`/goals/${goalId}`));
    await page.waitForSelector("[data-testid=contract]");
    await page.selectOption("[name=revisionType]", "redirect");
    await page.fill("[name=revisionContent]", "Tell support about the release");
    await page.fill("[name=newCheckId]", "support-told");
    await page.fill("[name=newCheckPath]", "support.md");
    await page.click("[data-testid=revise]");
    await page.waitForSelector("[data-testid=action-result]:text('revise: accepted')");
    await e2e.stack.events.idle();
    await e2e.client.decideApproval(String(requested.approvalId), "approve");

    // Assess: live, the contract on the page becomes the new one.
    await page.waitForSelector("[data-testid=objective]:text('Tell support about the release')", {
      timeout: 60_000,
    });
    expect(await page.textContent("[data-testid=checks]")).toContain("support-told");
    expect(await page.textContent("[data-testid=checks]")).not.toContain("ops-told");
    expect(await page.textContent("[data-testid=revisions]")).toMatch(/revision 2: redirect/);
    await page.screenshot({ path: join(SCREENSHOTS, "redirected.png"), fullPage: true });
  }, 90_000);

  it("pauses a running goal from the page, shows it paused, and resumes it to completion", async () => {
    // Prepare: slow notes, then the poem, so the goal is running when the button is pressed.
    e2e.writeFixture("console-pause", {
      reason: [
        ...Array.from({ length: 4 }, (_, index) => ({
          toolUse: {
            name: "workspace_write",
            input: { path: `notes/${index}.md`, content: `note ${index}` },
          },
          latencyMs: 400,
        })),
        { toolUse: { name: "workspace_write", input: { path: "poem.md", content: "winter light on snow" } } },
      ],
    });
    const { goalId } = await e2e.client.submitGoal({
      objective: "Write a short poem about winter to poem.md",
      successChecks: [
        {
          id: "poem",
          description: "poem.md mentions light",
          verify: { kind: "artifact", path: "poem.md", contains: "light" },
        },
      ],
      limits: { maxSteps: 20, maxNoProgressCycles: 10 },
      pattern: "react",
      models: { default: "scripted:console-pause" },
    });
    await untilEvent(goalId, "tool.called");

    // Act
    await page.goto(consoleUrl(`/goals/${goalId}`));
    await page.waitForSelector("[data-testid=goal-status]:text('running')");
    await page.click("[data-testid=pause]");
    await page.waitForSelector("[data-testid=action-result]:text('pause: accepted')");
    await page.waitForSelector("[data-testid=goal-status]:text('paused')", { timeout: 60_000 });
    const stopped = await page.textContent(".stopped");
    await page.screenshot({ path: join(SCREENSHOTS, "paused.png"), fullPage: true });
    await page.click("[data-testid=resume]");

    // Assess
    await page.waitForSelector("[data-testid=goal-status]:text('completed')", { timeout: 60_000 });
    expect(stopped).toMatch(/human/);
    const final = await e2e.client.getGoal(goalId);
    expect(final).toMatchObject({ status: "completed", runId: "r2", satisfiedChecks: ["poem"] });
    expect(final.usageByRole.reason?.modelCalls).toBe(5);
  }, 90_000);

  it("forks a goal from its step timeline, with a revision and a model, and watches the fork complete live", async () => {
    // Prepare: six passes over report.md, done.
    const { goalId } = await e2e.client.submitGoal(REACT_SIX);
    await untilEvent(goalId, "goal.completed");

    // Act: "Fork from here" on step 3 opens the form; every field is found by its label.
    await page.goto(consoleUrl(`/goals/${goalId}`));
    const timeline = page.getByTestId("timeline");
    await timeline.locator("li[data-step='6']").waitFor();
    await timeline.getByRole("button", { name: "Fork from here (after step 3)" }).click();
    const form = page.getByRole("form", { name: "Fork after step 3" });
    await form.getByLabel("Revision type", { exact: true }).selectOption("add_constraint");
    await form.getByLabel("Revision", { exact: true }).fill("Keep the report under 100 words.");
    await form.getByLabel("Model role", { exact: true }).selectOption("reason");
    await form.getByLabel("Model", { exact: true }).fill("scripted:fork-react-six");
    await page.screenshot({ path: join(SCREENSHOTS, "fork-form.png"), fullPage: true });
    await form.getByRole("button", { name: "Fork", exact: true }).click();

    // Assess: the page moves to the fork, which completes live and links back to its source.
    await page.waitForURL((url) => /#\/goals\/g-/.test(url.hash) && !url.hash.includes(goalId));
    const forkId = decodeURIComponent(new URL(page.url()).hash.replace("#/goals/", ""));
    await page.waitForSelector("[data-testid=goal-status]:text('completed')", { timeout: 60_000 });
    expect(await page.textContent("[data-testid=forked-from]")).toMatch(
      new RegExp(`Forked from ${goalId} after step 3`),
    );
    expect(await page.textContent("[data-testid=inherited-usage]")).toMatch(/inherited from/);
    await page.getByTestId("timeline").locator("li[data-step='6']").waitFor();
    expect(await page.getByTestId("timeline").locator("li.inherited").count()).toBe(3);
    await page.screenshot({ path: join(SCREENSHOTS, "fork.png"), fullPage: true });
    await page.goto(consoleUrl(`/goals/${goalId}`));
    await page.locator(`[data-testid=forks] a[href='#/goals/${forkId}']`).waitFor();
    const fork = await e2e.client.getGoal(forkId);
    expect(fork).toMatchObject({ status: "completed", forkedFrom: { goalId, step: 3 }, revision: 2 });
  }, 120_000);

  it("never puts a task token in front of the page", async () => {
    // Assess: every response the page saw, against every token the runtime handed out.
    const tokens = e2e.stack.executions.tokens.issued();
    expect(tokens.length).toBeGreaterThan(0);
    const seen = seenByPage.join("\n");
    for (const token of tokens) expect(seen).not.toContain(token);
  });

  it("signs in through the local issuer (authorization code with PKCE) and shows the tenant, its limits and only its goals", async () => {
    // Prepare: a goal of the loopback tenant, which team-a must not see
    const others = await e2e.client.submitGoal(notifyGoal("notify-needs-approval"));
    const fresh = await browser.newPage({ viewport: { width: 1200, height: 1000 } });

    // Act
    await fresh.goto(consoleUrl("/goals"));
    await fresh.getByRole("button", { name: "Sign in" }).click();
    await fresh.waitForURL(/\/_local\/oidc\/authorize/);
    await fresh.getByLabel("Tenant").fill("team-a");
    await fresh.getByLabel("User").fill("alice");
    await fresh.getByRole("button", { name: "Sign in" }).click();

    // Assess: back on the console as team-a, the code gone from the address bar
    await fresh.waitForSelector("[data-testid=tenant]:has-text('team-a')");
    expect(await fresh.textContent("[data-testid=tenant]")).toMatch(/tenant team-a \(alice\)/);
    // This stack's configuration sets no tenant limits (the end-to-end tenants test sets some).
    expect(await fresh.textContent("[data-testid=tenant-limits]")).toBe("no limits");
    expect(new URL(fresh.url()).search).toBe("");
    await fresh.getByTestId("goals-view").waitFor();
    expect(await fresh.locator(`a[href='#/goals/${others.goalId}']`).count()).toBe(0);
    await fresh.goto(consoleUrl(`/goals/${others.goalId}`));
    await fresh
      .getByText(/does not exist|not ?found|404/i)
      .first()
      .waitFor();
    await fresh.close();
  }, 120_000);

  it("signs in through a configured issuer behind `goal-loops console --issuer --client-id`, its calls carrying the bearer unsigned", async () => {
    // Prepare: the console server on its own port, the local stack's issuer as the configured one,
    // and a stand-in signer that records what it would have signed.
    const signed: string[] = [];
    const signingFetch: ApiFetch = (url, init) => {
      signed.push(url);
      return fetch(url, init);
    };
    const proxy = await startConsoleServer({
      apiUrl: e2e.stack.apiUrl,
      apiFetch: signingFetch,
      port: 0,
      issuer: { issuer: `${e2e.stack.apiUrl}/_local/oidc`, clientId: "goal-loops-console" },
    });
    const fresh = await browser.newPage({ viewport: { width: 1200, height: 1000 } });

    try {
      // Act
      await fresh.goto(`${proxy.url}/console#/goals`);
      await fresh.getByRole("button", { name: "Sign in" }).click();
      await fresh.waitForURL(/\/_local\/oidc\/authorize/);
      await fresh.getByLabel("Tenant").fill("team-b");
      await fresh.getByLabel("User").fill("bob");
      await fresh.getByRole("button", { name: "Sign in" }).click();
      await fresh.waitForSelector("[data-testid=tenant]:has-text('team-b')");
      signed.length = 0;
      const me = await fresh.evaluate(async () => {
        const token = Reflect.get(globalThis, "sessionStorage").getItem("goal-loops.token");
        const response = await fetch("/tenants/me", { headers: { authorization: `Bearer ${token}` } });
        return (await response.json()) as { tenantId: string; via: string; caller: string };
      });

      // Assess: back on the console's own origin, as team-b, and the API saw bob's token, not a signature.
      expect(new URL(fresh.url()).origin).toBe(proxy.url);
      expect(await fresh.textContent("[data-testid=tenant]")).toMatch(/tenant team-b \(bob\)/);
      expect(me).toMatchObject({ tenantId: "team-b", via: "jwt", caller: "jwt:bob" });
      expect(signed).toEqual([]);
    } finally {
      await fresh.close();
      await proxy.close();
    }
  }, 120_000);

  it("has no critical or serious WCAG 2.1 A/AA violation (axe-core) on any view, the sign-in page included", async () => {
    // Prepare
    const { goalId } = (await e2e.client.listGoals({ status: "completed", limit: 1 })).items[0] ?? {
      goalId: "",
    };
    const fresh = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    const views = [
      consoleUrl("/goals"),
      consoleUrl("/approvals"),
      consoleUrl(`/goals/${goalId}`),
      `${e2e.stack.apiUrl}/_local/oidc/authorize?response_type=code&client_id=goal-loops-console&redirect_uri=${encodeURIComponent(`${e2e.stack.apiUrl}/console`)}&code_challenge=${"a".repeat(43)}&code_challenge_method=S256`,
    ];

    // Act
    const found: string[] = [];
    for (const view of views) {
      await fresh.goto(view);
      await fresh.waitForLoadState("networkidle");
      if (view.includes("/console")) await fresh.locator("main section, main div").first().waitFor();
      await fresh.addScriptTag({ path: AXE_SCRIPT });
      const violations = await fresh.evaluate(async () => {
        // In the page: axe-core's global and the page's document (no DOM types in the tests' build).
        const axe = Reflect.get(globalThis, "axe") as {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }>;
        };
        const result = await axe.run(Reflect.get(globalThis, "document"), {
          runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
        });
        return result.violations.map(({ id, impact, nodes }) => ({ id, impact, count: nodes.length }));
      });
      for (const violation of violations) {
        if (violation.impact === "critical" || violation.impact === "serious") {
          found.push(`${view}: ${violation.id} (${violation.impact}, ${violation.count} nodes)`);
        }
      }
    }

    // Assess
    expect(found).toEqual([]);
    await fresh.close();
  }, 120_000);
});
