import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfigFile } from "../../../lib/config/load-config";
import { formatToolListing, listConfiguredTools } from "../../../lib/local/cli/list-tools";
import { runCli } from "../../e2e/run-cli";
import { startTestMcpServer } from "../../support/mcp-test-server";

const PROJECT_DIR = join(import.meta.dirname, "..", "..", "..");
const TOOLS_CONFIG = join(PROJECT_DIR, "examples", "goal-loops.tools.config.json");

/** A port that was free a moment ago and now has no listener. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const address = server.address();
  await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}

describe("goal-loops tools", () => {
  it("lists the built-ins and the configuration's Lambda tools with their risk and why", () => {
    // Act
    const tools = listConfiguredTools(loadConfigFile(TOOLS_CONFIG));

    // Assess
    expect(tools.map(({ name, risk, source }) => [name, risk, source])).toEqual([
      ["http_request", "read (GET) / irreversible", "built-in"],
      ["notify", "irreversible", "built-in"],
      ["spawn_subgoal", "reversible", "built-in"],
      ["workspace_list", "read", "built-in"],
      ["workspace_read", "read", "built-in"],
      ["workspace_write", "reversible", "built-in"],
      ["lookup_ticket", "read", "lambda entry examples/tools/lookup-ticket.ts"],
      ["set_ticket_priority", "reversible", "lambda entry examples/tools/set-ticket-priority.ts"],
    ]);
    expect(tools.find((tool) => tool.name === "lookup_ticket")?.inputSchema).toMatchObject({
      required: ["ticketId"],
    });
    expect(formatToolListing(tools).at(-2)).toMatch(/^lookup_ticket\s+read\s+lambda entry/);
  });

  it("says what undoes each tool's calls, or that nothing does", () => {
    // Act
    const tools = listConfiguredTools(loadConfigFile(TOOLS_CONFIG));
    const undo = Object.fromEntries(tools.map((tool) => [tool.name, tool.compensator]));

    // Assess: workspace_write and a Lambda tool with a compensate function undo; notify,
    // http_request and spawn_subgoal declare none; a read has nothing to undo
    expect(undo).toMatchObject({
      workspace_write: "restores the content the write replaced, or deletes the file it created",
      set_ticket_priority: "its compensate function",
      lookup_ticket: "nothing to undo (reads)",
      workspace_read: "nothing to undo (reads)",
    });
    for (const name of ["notify", "http_request", "spawn_subgoal"]) expect(undo[name]).toMatch(/^none: /);
    expect(formatToolListing(tools).find((line) => line.startsWith("notify"))).toMatch(
      /undo: none: a message sent cannot be unsent$/,
    );
  });

  it("prints them as JSON with --json; a configured MCP server that is down is named and exits 1", async () => {
    // Prepare: the example's tools, its MCP server at a port nothing listens on (the e2e files
    // start server-everything on the example's own port meanwhile)
    const folder = mkdtempSync(join(tmpdir(), "goal-loops-tools-"));
    const config = join(folder, "tools.config.json");
    const port = await closedPort();
    const example = JSON.parse(readFileSync(TOOLS_CONFIG, "utf8"));
    example.tools.mcp[0].url = `http://127.0.0.1:${port}/mcp`;
    writeFileSync(config, JSON.stringify({ ...example, $schema: undefined }));

    try {
      // Act
      const listed = await runCli(["tools", "--config", config, "--json"]);
      const refused = await runCli(["tools", "--config", join(PROJECT_DIR, "package.json")]);

      // Assess
      expect(listed.code).toBe(1);
      expect(JSON.parse(listed.stdout).map((tool: { name: string }) => tool.name)).toContain("lookup_ticket");
      expect(listed.stderr).toContain(
        `everything: McpServerUnreachable: MCP server 'everything' (http://127.0.0.1:${port}/mcp) is unreachable`,
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/ConfigError: .*package\.json: name is not a setting/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("shows how one MCP server's tools would be gated with --mcp URL", async () => {
    // Prepare
    const server = await startTestMcpServer();
    try {
      // Act
      const listed = await runCli(["tools", "--mcp", server.url, "--name", "desk"]);

      // Assess
      expect(listed.code).toBe(0);
      const lines = listed.stdout.trim().split("\n");
      expect(lines).toEqual([
        expect.stringMatching(
          /^desk__lookup\s+read\s+mcp desk http:\/\/127\.0\.0\.1:\d+\/mcp\s+annotation readOnlyHint\s+undo: nothing to undo \(reads\)$/,
        ),
        expect.stringMatching(
          /^desk__delete\s+irreversible\s+mcp desk .*no annotation says read-only or non-destructive\s+undo: none: an MCP tool declares no way to undo a call$/,
        ),
        expect.stringMatching(/^desk__slow\s+read\s+/),
      ]);
    } finally {
      await server.close();
    }
  });
});
