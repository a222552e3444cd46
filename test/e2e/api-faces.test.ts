import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../lambdas/handlers/api/contract/openapi-document";
import { InvalidStatusApiError } from "../../lib/client/index";
import { gatedNotifyGoal } from "./gated-notify-goal";
import { type E2eStack, PROJECT_DIR } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

const EXAMPLE = JSON.parse(
  readFileSync(join(PROJECT_DIR, "examples/goals/write-release-summary.json"), "utf8"),
);

/** A goal whose `notify` is gated: it waits for one approval. */
const GATED = gatedNotifyGoal();

describe("the goals API's three faces on npm start", () => {
  let e2e: E2eStack;
  beforeAll(async () => {
    e2e = await sharedE2eStack();
  });
  afterAll(async () => {
    await e2e?.stop();
  });

  const opsNotifies = async (goalId: string) =>
    (await e2e.stack.readOutbox()).filter((entry) => entry.goalId === goalId && entry.channel === "ops");

  it("GoalLoopsClient: start, watch to completion, approve a gated goal, a 409 as its typed error", async () => {
    // Act: the README's example, watched until the stream ends (the goal is final).
    const { goalId } = await e2e.client.startGoal(EXAMPLE);
    const types: string[] = [];
    for await (const event of e2e.client.watch(goalId)) types.push(event.type);
    const done = await e2e.client.getGoal(goalId);
    // The gated goal: watch until it asks, approve, watch to its end.
    const gated = await e2e.client.startGoal(GATED);
    for await (const event of e2e.client.watch(gated.goalId)) if (event.type === "approval.requested") break;
    const [pending] = (await e2e.client.listApprovals()).filter((item) => item.goalId === gated.goalId);
    const approval = await e2e.client.decideApproval(pending?.approvalId ?? "", "approve", "ship it");
    await e2e.stack.events.idle();
    for await (const _event of e2e.client.watch(gated.goalId)) {
      // to the end of the stream
    }
    const refused = await e2e.client.resume(goalId).catch((error: unknown) => error);

    // Assess
    expect(done.status).toBe("completed");
    expect(types).toContain("goal.completed");
    expect(approval).toMatchObject({ status: "approved", decision: { decision: "approve" } });
    expect((await e2e.client.getGoal(gated.goalId)).status).toBe("completed");
    expect(await opsNotifies(gated.goalId)).toHaveLength(1);
    expect(refused).toBeInstanceOf(InvalidStatusApiError);
    expect(refused).toMatchObject({ status: 409, code: "InvalidStatus" });
  }, 180_000);

  it("GET /openapi.json, from the document's own function: the generated document, byte for byte; another method 405 from the API's", async () => {
    // Act
    const answer = await fetch(`${e2e.stack.apiUrl}/openapi.json`);
    const other = await fetch(`${e2e.stack.apiUrl}/openapi.json`, { method: "DELETE" });
    const typed = await e2e.client.openApiDocument();

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await answer.text()).toBe(JSON.stringify(openApiDocument()));
    expect(other.status).toBe(405);
    expect(other.headers.get("allow")).toBe("GET");
    expect(typed).toEqual(openApiDocument());
  });

  describe("the MCP endpoint /mcp, with the official SDK's client", () => {
    let client: Client;
    beforeAll(async () => {
      client = new Client({ name: "goal-loops-e2e", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${e2e.stack.apiUrl}/mcp`)));
    });
    afterAll(async () => {
      await client?.close();
    });

    const call = (name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void) =>
      client
        .callTool({ name, arguments: args }, CallToolResultSchema, onprogress ? { onprogress } : {})
        .then((result) => CallToolResultSchema.parse(result));
    const structured = (result: { structuredContent?: Record<string, unknown> }) =>
      result.structuredContent ?? {};

    it("lists the tools with honest annotations", async () => {
      // Act
      const { tools } = await client.listTools();

      // Assess
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect([...byName.keys()].sort()).toEqual(
        [
          "cancel_goal",
          "decide_approval",
          "get_goal",
          "list_approvals",
          "pause_goal",
          "resume_goal",
          "revise_goal",
          "start_goal",
          "wait_for_goal",
        ].sort(),
      );
      for (const name of ["decide_approval", "revise_goal", "pause_goal", "resume_goal", "cancel_goal"]) {
        expect(byName.get(name)?.annotations?.destructiveHint, name).toBe(true);
      }
      for (const name of ["get_goal", "wait_for_goal", "list_approvals"]) {
        expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(true);
      }
      expect(byName.get("decide_approval")?.inputSchema.required).toContain("decision");
    });

    it("start_goal → wait_for_goal with progress notifications to completed; the snapshot as a resource", async () => {
      // Act
      const started = structured(await call("start_goal", EXAMPLE));
      const goalId = String(started.goalId);
      const progress: Progress[] = [];
      let answer = structured(
        await call("wait_for_goal", { goalId, timeoutSeconds: 45 }, (p) => progress.push(p)),
      );
      while (answer.outcome === "status_changed") {
        answer = structured(
          await call("wait_for_goal", { goalId, timeoutSeconds: 45 }, (p) => progress.push(p)),
        );
      }
      const resource = await client.readResource({ uri: `goal://${goalId}` });

      // Assess
      expect(answer).toMatchObject({ outcome: "final", goal: { goalId, status: "completed" } });
      expect(progress.length).toBeGreaterThan(0);
      const last = progress.at(-1);
      expect(last?.progress).toBe(last?.total);
      expect(JSON.parse(String(Reflect.get(resource.contents[0] ?? {}, "text")))).toMatchObject({
        goalId,
        status: "completed",
      });
    }, 120_000);

    it("list_approvals → decide_approval on a gated goal: its notify is delivered once", async () => {
      // Prepare
      const { goalId } = structured(await call("start_goal", GATED)) as { goalId: string };
      const waiting = structured(await call("wait_for_goal", { goalId, timeoutSeconds: 45 }));
      expect(waiting).toMatchObject({ goal: { status: "waiting" } });

      // Act
      const { items } = structured(await call("list_approvals", {})) as {
        items: { approvalId: string; goalId: string }[];
      };
      const approvalId = items.find((item) => item.goalId === goalId)?.approvalId ?? "";
      const decided = await call("decide_approval", { approvalId, decision: "approve" });
      await e2e.stack.events.idle();
      let answer = structured(await call("wait_for_goal", { goalId, timeoutSeconds: 45 }));
      while (
        answer.outcome === "status_changed" &&
        (answer.goal as { status: string }).status !== "completed"
      ) {
        answer = structured(await call("wait_for_goal", { goalId, timeoutSeconds: 45 }));
      }

      // Assess
      expect(decided.isError).toBeFalsy();
      expect(answer).toMatchObject({ goal: { status: "completed" } });
      expect(await opsNotifies(goalId)).toHaveLength(1);
    }, 120_000);

    it("answers bad arguments and a refused call as tool errors naming the field or the API's code", async () => {
      // Act
      const noDecision = await call("decide_approval", { approvalId: `ap-${"0".repeat(32)}` });
      const noChecks = await call("start_goal", { objective: "no checks" });
      const unknown = await call("get_goal", { goalId: "g-01jq0000000000000000000000" });

      // Assess
      expect(noDecision.isError).toBe(true);
      expect(JSON.stringify(noDecision.content)).toMatch(/decision/);
      expect(noChecks.isError).toBe(true);
      expect(JSON.stringify(noChecks.content)).toMatch(/successChecks/);
      expect(unknown.isError).toBe(true);
      expect(JSON.stringify(unknown.content)).toMatch(/GoalNotFound/);
    });

    it("refuses a foreign Host or Origin on loopback (DNS rebinding)", async () => {
      // Prepare
      const { port } = new URL(e2e.stack.apiUrl);
      const post = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const req = request(
            {
              host: "127.0.0.1",
              port,
              path: "/mcp",
              method: "POST",
              headers: {
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
                ...headers,
              },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on("error", reject);
          req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
        });

      // Act + Assess
      expect(await post({ host: "evil.example.com" })).toBe(403);
      expect(await post({ host: `127.0.0.1:${port}`, origin: "http://evil.example.com" })).toBe(403);
    });

    it("passes the MCP conformance suite's server scenarios that apply", async () => {
      // Act: the suite's CLI (Node 22's fs.globSync shimmed for Node 20), one scenario at a time.
      const results: Record<string, string> = {};
      for (const scenario of [
        "server-initialize",
        "ping",
        "server-sse-polling",
        "dns-rebinding-protection",
        "tools-list",
        "resources-list",
      ]) {
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [
            "--import",
            join(PROJECT_DIR, "test/support/conformance/register-fs-shim.mjs"),
            join(PROJECT_DIR, "node_modules/@modelcontextprotocol/conformance/dist/index.js"),
            "server",
            "--url",
            `${e2e.stack.apiUrl.replace("127.0.0.1", "localhost")}/mcp`,
            "--scenario",
            scenario,
          ],
          { timeout: 60_000 },
        ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
        results[scenario] = /(\d+) failed/.exec(stdout)?.[1] ?? "no result";
      }

      // Assess
      expect(results).toEqual({
        "server-initialize": "0",
        ping: "0",
        "server-sse-polling": "0",
        "dns-rebinding-protection": "0",
        "tools-list": "0",
        "resources-list": "0",
      });
    }, 180_000);
  });
});
