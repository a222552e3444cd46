import { describe, expect, it } from "vitest";
import {
  builtInToolRegistry,
  DEFAULT_TOOL_NAMES,
  grantedToolNames,
  httpRequestTool,
  notifyTool,
  riskOf,
  toolSpecs,
  workspaceListTool,
  workspaceReadTool,
  workspaceWriteTool,
} from "../../../lambdas/tools";

const ALL = ["workspace_write", "notify", "http_request", "workspace_read", "workspace_list"];

describe("tool registry: specs for the model", () => {
  it("gives each tool's input as an input-side JSON Schema object that forbids unknown fields", () => {
    // Act
    const specs = toolSpecs(ALL);

    // Assess
    const write = specs.find((spec) => spec.name === "workspace_write");
    expect(write?.inputSchema).toMatchObject({
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
      additionalProperties: false,
    });
    const http = specs.find((spec) => spec.name === "http_request");
    expect(http?.inputSchema).toMatchObject({
      type: "object",
      properties: {
        method: { type: "string", enum: ["GET", "POST", "PUT", "PATCH", "DELETE"] },
        url: { type: "string", format: "uri" },
        body: { type: "string" },
      },
      required: ["method", "url"],
    });
    expect(specs.find((spec) => spec.name === "workspace_list")?.inputSchema).toMatchObject({
      type: "object",
      properties: {},
    });
    for (const spec of specs) {
      expect(spec.description.length).toBeGreaterThan(20);
      // What Bedrock gets must be plain JSON.
      expect(JSON.parse(JSON.stringify(spec.inputSchema))).toEqual(spec.inputSchema);
      expect(spec.inputSchema).not.toHaveProperty("$schema");
    }
  });

  it("orders specs by name whatever order the grant lists them in, skipping unknown and repeated names", () => {
    // Act
    const forward = toolSpecs(ALL).map((spec) => spec.name);
    const backward = toolSpecs([...ALL, "deploy", "notify"].reverse()).map((spec) => spec.name);

    // Assess
    expect(forward).toEqual([
      "http_request",
      "notify",
      "workspace_list",
      "workspace_read",
      "workspace_write",
    ]);
    expect(backward).toEqual(forward);
  });

  it("grants the workspace tools when a GoalSpec lists no tools, and exactly the listed ones otherwise", () => {
    // Act
    const defaults = grantedToolNames(undefined);
    const listed = grantedToolNames(["notify"]);

    // Assess
    expect(defaults).toEqual(DEFAULT_TOOL_NAMES);
    expect(toolSpecs(defaults).map((spec) => spec.name)).toEqual([
      "workspace_list",
      "workspace_read",
      "workspace_write",
    ]);
    expect(listed).toEqual(["notify"]);
  });
});

describe("tool registry: risk", () => {
  it("classifies each built-in tool's risk, http_request by its method", () => {
    // Act
    const risks = {
      read: riskOf(workspaceReadTool, { path: "a.txt" }),
      list: riskOf(workspaceListTool, {}),
      write: riskOf(workspaceWriteTool, { path: "a.txt", content: "x" }),
      notify: riskOf(notifyTool, { channel: "ops", message: "hi" }),
      get: riskOf(httpRequestTool, { method: "GET", url: "https://example.com/" }),
      post: riskOf(httpRequestTool, { method: "POST", url: "https://example.com/", body: "{}" }),
      delete: riskOf(httpRequestTool, { method: "DELETE", url: "https://example.com/x" }),
    };

    // Assess
    expect(risks).toEqual({
      read: "read",
      list: "read",
      write: "reversible",
      notify: "irreversible",
      get: "read",
      post: "irreversible",
      delete: "irreversible",
    });
  });

  it("computes the risk of a raw call after parsing it", () => {
    // Act
    const get = builtInToolRegistry.get("http_request")?.prepare({ method: "GET", url: "http://127.0.0.1/" });
    const put = builtInToolRegistry.get("http_request")?.prepare({ method: "PUT", url: "http://127.0.0.1/" });

    // Assess
    expect(get?.risk).toBe("read");
    expect(put?.risk).toBe("irreversible");
  });
});
