import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfigFile } from "../../../lib/config/load-config";
import { formatToolListing, listTools } from "../../../lib/local/cli/list-tools";
import { runCli } from "../../e2e/run-cli";

const PROJECT_DIR = join(import.meta.dirname, "..", "..", "..");
const TOOLS_CONFIG = join(PROJECT_DIR, "examples", "goal-loops.tools.config.json");

describe("goal-loops tools", () => {
  it("lists the built-ins and the configuration's Lambda tools with their risk and why", () => {
    // Act
    const tools = listTools(loadConfigFile(TOOLS_CONFIG));

    // Assess
    expect(tools.map(({ name, risk, source }) => [name, risk, source])).toEqual([
      ["http_request", "read (GET) / irreversible", "built-in"],
      ["notify", "irreversible", "built-in"],
      ["workspace_list", "read", "built-in"],
      ["workspace_read", "read", "built-in"],
      ["workspace_write", "reversible", "built-in"],
      ["lookup_ticket", "read", "lambda entry examples/tools/lookup-ticket.ts"],
    ]);
    expect(tools.at(-1)?.inputSchema).toMatchObject({ required: ["ticketId"] });
    expect(formatToolListing(tools).at(-1)).toMatch(/^lookup_ticket\s+read\s+lambda entry/);
  });

  it("prints them as JSON with --json, and exits 1 naming the field of a bad configuration", async () => {
    // Act
    const listed = await runCli(["tools", "--config", TOOLS_CONFIG, "--json"]);
    const refused = await runCli(["tools", "--config", join(PROJECT_DIR, "package.json")]);

    // Assess
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((tool: { name: string }) => tool.name)).toContain("lookup_ticket");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/ConfigError: .*package\.json: name is not a setting/);
  });
});
