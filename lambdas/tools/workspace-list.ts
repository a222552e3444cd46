import * as z from "../core/zod";
import type { BuiltInTool } from "./built-in-tool";

export const WorkspaceListInputSchema = /* @__PURE__ */ z.lazySchema(() => z.strictObject({}));

export const workspaceListTool: BuiltInTool<typeof WorkspaceListInputSchema> = {
  name: "workspace_list",
  description: "List the files in the goal's workspace with their size, version and SHA-256.",
  inputSchema: WorkspaceListInputSchema,
  risk: "read",
  async execute(_input, env) {
    const entries = await env.workspace.listFiles(env.context.goalId);
    // Sorted here, whatever order the store returns, so the same workspace always hashes the same.
    const files = [...entries]
      .sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0))
      .map((entry) => ({
        path: entry.path,
        size: entry.size,
        version: entry.version,
        sha256: entry.sha256,
        updatedAt: entry.updatedAt,
      }));
    return { value: { files } };
  },
};
