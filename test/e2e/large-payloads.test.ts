import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAULT_INJECTION_ENV } from "../../lambdas/adapters/shared/fault-injection";
import { allEvents, type E2eStack, followGoal, startE2eStack } from "./local-stack-harness";
import { sharedE2eStack } from "./shared-e2e-stack";

/** CSV-like text of about `bytes` UTF-8 bytes whose last line is `lastLine`. */
function csv(bytes: number, lastLine: string): string {
  const header = "id,region,amount";
  const rows: string[] = [header];
  let size = header.length + 1;
  for (let id = 1; size < bytes - lastLine.length - 1; id++) {
    const row = `${id},eu-${id % 7},${(id * 37) % 1000}.${id % 100}`;
    rows.push(row);
    size += row.length + 1;
  }
  rows.push(lastLine);
  return rows.join("\n");
}

function write(path: string, content: string) {
  return {
    toolUse: { name: "workspace_write", input: { path, content } },
    usage: { inputTokens: 900, outputTokens: 4000 },
  };
}

function artifactCheck(id: string, path: string, contains: string) {
  return { id, description: `${path} holds '${contains}'`, verify: { kind: "artifact", path, contains } };
}

function reactGoal(model: string, successChecks: unknown[]) {
  return {
    objective: "Produce the quarterly report and its data export in the workspace.",
    scope: ["Only the workspace."],
    successChecks,
    limits: { maxSteps: 8, maxCostUsd: 1 },
    pattern: "react",
    tools: ["workspace_write", "workspace_read", "workspace_list"],
    models: { default: `scripted:${model}` },
  };
}

/** Objects the local S3 keeps under one goal's prefix (`GOAL/<goalId>/<sha256>` in the payload bucket). */
function storedBodies(e2e: E2eStack, goalId: string): string[] {
  const [bucket] = e2e.stack.model.buckets;
  if (bucket === undefined) throw new Error("the stack has no payload bucket");
  try {
    return readdirSync(join(e2e.stack.s3.directory, bucket.bucketName, "GOAL", goalId)).filter((name) =>
      name.endsWith("._S3rver_object"),
    );
  } catch {
    return [];
  }
}

/** Each tool call of a goal, from its events: [tool, status]. */
async function toolCalls(e2e: E2eStack, goalId: string): Promise<unknown[][]> {
  const events = await allEvents(e2e.client, goalId);
  return events.filter((event) => event.type === "tool.called").map((event) => [event.name, event.status]);
}

const REPORT_END = "END OF REPORT: 600 KB";
const DATA_END = "total,all,42424242.42";

describe("large payloads on the local stack", () => {
  let e2e: E2eStack;
  const report = `<html><body><pre>${csv(600 * 1024, "")}</pre><p>${REPORT_END}</p></body></html>`;
  const data = csv(5 * 1024 * 1024, DATA_END);

  beforeAll(async () => {
    e2e = await sharedE2eStack();
    e2e.writeFixture("large-files", {
      reason: [
        write("out/report.html", report),
        { toolUse: { name: "workspace_read", input: { path: "out/report.html" } } },
        write("out/data.csv", data),
        { text: "Both files are written." },
      ],
    });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("writes a 600 KB and a 5 MB file, reads the first back, and completes on text at the end of the second", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(
      reactGoal("large-files", [
        artifactCheck("report", "out/report.html", REPORT_END),
        artifactCheck("data-total", "out/data.csv", DATA_END),
      ]),
    );
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess: completed on both files' evidence, hashes of the full contents
    expect(final.status).toBe("completed");
    expect(final.satisfiedChecks).toEqual(expect.arrayContaining(["report", "data-total"]));
    expect(await toolCalls(e2e, accepted.goalId)).toEqual([
      ["workspace_write", "success"],
      ["workspace_read", "success"],
      ["workspace_write", "success"],
    ]);

    // Assess: the turn that wrote the report goes back as the model gave it (the current tool-use
    // cycle is never trimmed), while the read's result came back bounded (its head inline, the rest
    // referenced), and no prompt carried the 5 MB file
    const reasonCalls = e2e.stack.bedrock
      .calls()
      .filter((call) => call.goalId === accepted.goalId && call.role === "reason");
    expect(reasonCalls).toHaveLength(3);
    const afterRead = JSON.stringify(reasonCalls[2]?.request);
    expect(afterRead).toContain("<html><body><pre>id,region,amount");
    const messages = (reasonCalls[2]?.request.messages ?? []) as { content: Record<string, unknown>[] }[];
    const blocks = messages.flatMap((message) => message.content);
    const written = blocks.find((block) => JSON.stringify(block.toolUse ?? null).includes("out/report.html"));
    expect(JSON.stringify(written)).toContain(REPORT_END);
    const results = blocks.filter((block) => block.toolResult !== undefined);
    expect(results).toHaveLength(2);
    for (const result of results) expect(JSON.stringify(result).length).toBeLessThan(4 * 1024);
    const middleOfData = data.slice(2_500_000, 2_500_200);
    for (const call of reasonCalls) {
      expect(JSON.stringify(call.request)).not.toContain(middleOfData);
      expect(JSON.stringify(call.request).length).toBeLessThan(700 * 1024);
    }

    // Assess: the contents live in the local S3, by hash
    expect(storedBodies(e2e, accepted.goalId).length).toBeGreaterThanOrEqual(2);
    // Two prompts carry the 600 KB turn: more work than a short goal's 30 s
  }, 120_000);

  it("keeps a small goal out of S3 entirely", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(
      reactGoal("write-release-summary", [artifactCheck("summary-written", "summary.md", "2.0")]),
    );
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect(final.status).toBe("completed");
    expect(storedBodies(e2e, accepted.goalId)).toEqual([]);
  });
});

describe("large payloads with a crash after the checkpoint and a 1 MiB file limit", () => {
  let e2e: E2eStack;
  const page = `<html><body>${csv(600 * 1024, "")}</body></html>`;
  const tooLarge = csv(1536 * 1024, "never stored");

  beforeAll(async () => {
    e2e = await startE2eStack({
      environment: {
        [FAULT_INJECTION_ENV]: "crash-after-checkpoint:reason:0",
        PAYLOAD_MAX_BYTES: String(1024 * 1024),
      },
    });
    e2e.writeFixture("large-input", { reason: [write("site/index.html", page)] });
    e2e.writeFixture("over-the-limit", {
      reason: [write("out/export.csv", tooLarge), write("out/export.csv", csv(100 * 1024, DATA_END))],
    });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it("completes a goal whose model answer carries a 600 KB tool input, paying the crashed call once", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(
      reactGoal("large-input", [artifactCheck("page", "site/index.html", "</body></html>")]),
    );
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess
    expect(final.status).toBe("completed");
    expect(e2e.logLines.some((line) => line.includes(`${FAULT_INJECTION_ENV}: crashing`))).toBe(true);
    expect(e2e.stack.bedrock.callCount({ goalId: accepted.goalId, role: "reason", call: 0 })).toBe(1);
    expect(final.usage.modelCalls).toBe(1);
  });

  it("answers a file over the maximum with a tool error naming the limit, and the goal goes on", async () => {
    // Act
    const accepted = await e2e.client.submitGoal(
      reactGoal("over-the-limit", [artifactCheck("export", "out/export.csv", DATA_END)]),
    );
    const { final } = await followGoal(e2e.client, accepted.goalId);

    // Assess: the first write failed as the model's error, the second completed the goal
    expect(final.status).toBe("completed");
    expect(await toolCalls(e2e, accepted.goalId)).toEqual([
      ["workspace_write", "error"],
      ["workspace_write", "success"],
    ]);
    const retry = e2e.stack.bedrock
      .calls()
      .find((call) => call.goalId === accepted.goalId && call.role === "reason" && call.call === 1);
    expect(JSON.stringify(retry?.request)).toContain(
      `WorkspaceFileTooLarge: Cannot write 'out/export.csv': 'out/export.csv' is ${Buffer.byteLength(tooLarge)} bytes; the workspace keeps files up to 1048576 bytes`,
    );
  });
});

describe("large payloads across a restart of the local stack", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "goal-loops-large-restart-"));
  const report = `<html><body><pre>${csv(600 * 1024, "")}</pre><p>${REPORT_END}</p></body></html>`;
  const stacks: E2eStack[] = [];

  afterAll(async () => {
    for (const stack of stacks) await stack.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("keeps the large file and step records in --state-dir: the goal reads them back after the restart", async () => {
    // Prepare: a 600 KB report, then a notify that waits for approval; then the stack stops
    const first = await startE2eStack({ stateDir });
    stacks.push(first);
    first.writeFixture("large-then-notify", {
      reason: [
        write("out/report.html", report),
        { toolUse: { name: "notify", input: { channel: "ops", message: "the report is ready" } } },
        write("summary.md", "The report is in out/report.html."),
      ],
    });
    const accepted = await first.client.submitGoal({
      ...reactGoal("large-then-notify", [
        artifactCheck("report", "out/report.html", REPORT_END),
        {
          id: "ops-told",
          description: "ops were told",
          verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
        },
        artifactCheck("summary", "summary.md", "out/report.html"),
      ]),
      tools: ["workspace_write", "workspace_read", "notify"],
    });
    const waiting = (await followGoal(first.client, accepted.goalId)).final;
    const approvalId = waiting.waitingFor?.approvalId ?? "";
    await first.stop();
    stacks.pop();

    // Act: a new stack on the same folder; approve, and the goal reasons on over the 600 KB step
    const second = await startE2eStack({ stateDir });
    stacks.push(second);
    await second.client.decideApproval(approvalId, "approve");
    // The decision travels over the bus to the resume handler: wait until the goal stops waiting.
    const wokenBy = Date.now() + 30_000;
    while ((await second.client.getGoal(accepted.goalId)).status === "waiting" && Date.now() < wokenBy) {
      await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
    }
    const { final } = await followGoal(second.client, accepted.goalId, { deadlineMs: 60_000 });

    // Assess
    expect(waiting).toMatchObject({ status: "waiting", waitingFor: { kind: "approval" } });
    expect(final.status).toBe("completed");
    expect(final.satisfiedChecks).toEqual(expect.arrayContaining(["report", "ops-told", "summary"]));
    expect(storedBodies(second, accepted.goalId).length).toBeGreaterThanOrEqual(1);
    // The conversation survived the restart: the 600 KB turn goes back verbatim, its reasoning block
    // with it, and the restarted strict endpoint took the signature it made before
    const lastReason = second.stack.bedrock
      .calls()
      .find((call) => call.goalId === accepted.goalId && call.role === "reason" && call.call === 2);
    expect(lastReason?.error).toBeUndefined();
    expect(JSON.stringify(lastReason?.request)).toContain(REPORT_END);
    expect(JSON.stringify(lastReason?.request)).toContain("reasoningContent");
  }, 180_000);
});
