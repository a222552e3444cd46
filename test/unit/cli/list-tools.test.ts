import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfigFile } from "../../../lib/config/load-config";
import { formatToolListing, listConfiguredTools } from "../../../lib/local/cli/list-tools";
import { runCli } from "../../e2e/run-cli";
import { startTestMcpServer } from "../../support/mcp-test-server";

const PROJECT_DIR = join(import.meta.dirname, "..", "..", "..");
const TOOLS_CONFIG = join(PROJECT_DIR, "examples", "goal-loops.tools.config.json");

describe("goal-loops tools", () => {
  it("lists the built-ins and the configuration's Lambda tools with their risk and why", () => {
    // Act
    const tools = listConfiguredTools(loadConfigFile(TOOLS_CONFIG));

    // Assess
    expect(tools.map(({ name, risk, source }) => [name, risk, source])).toEqual([
      ["http_request", "read (GET) / irreversible", "built-in"],
      ["notify", "irreversible", "built-in"],
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

  it("prints them as JSON with --json; a configured MCP server that is down is named and exits 1", async () => {
    // Act (nothing listens where the example expects server-everything)
    const listed = await runCli(["tools", "--config", TOOLS_CONFIG, "--json"]);
    const refused = await runCli(["tools", "--config", join(PROJECT_DIR, "package.json")]);

    // Assess
    expect(listed.code).toBe(1);
    expect(JSON.parse(listed.stdout).map((tool: { name: string }) => tool.name)).toContain("lookup_ticket");
    expect(listed.stderr).toMatch(
      /everything: McpServerUnreachable: MCP server 'everything' \(http:\/\/127\.0\.0\.1:3001\/mcp\)/,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/ConfigError: .*package\.json: name is not a setting/);
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
          /^desk__lookup\s+read\s+mcp desk http:\/\/127\.0\.0\.1:\d+\/mcp\s+annotation readOnlyHint$/,
        ),
        expect.stringMatching(
          /^desk__delete\s+irreversible\s+mcp desk .*no annotation says read-only or non-destructive$/,
        ),
        expect.stringMatching(/^desk__slow\s+read\s+/),
      ]);
    } finally {
      await server.close();
    }
  });
});
