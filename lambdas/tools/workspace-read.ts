import { WorkspacePathSchema } from "../core/goal/goal-spec";
import * as z from "../core/zod";
import type { BuiltInTool } from "./built-in-tool";
import { ToolCallError } from "./tool-call-error";

export const WorkspaceReadInputSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    path: WorkspacePathSchema.clone().register(z.globalRegistry, {
      description: "Relative path of the file in the goal's workspace",
    }),
    offset: z.optional(z.number().check(z.int(), z.gte(0), z.lte(100_000_000))).register(z.globalRegistry, {
      description: "First character to return (default 0): page through a file too large to read at once",
    }),
    length: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1_000_000))).register(z.globalRegistry, {
      description: "Most characters to return (default: the rest of the file)",
    }),
  }),
);

export const workspaceReadTool: BuiltInTool<typeof WorkspaceReadInputSchema> = {
  name: "workspace_read",
  description:
    "Read a text file from the goal's workspace. Large files come back as a reference; read them in parts with offset and length.",
  inputSchema: WorkspaceReadInputSchema,
  risk: "read",
  async execute(input, env) {
    const file = await env.workspace.readFile(env.context.goalId, input.path);
    if (!file) {
      throw new ToolCallError(
        "FileNotFound",
        `No file '${input.path}' in the workspace; workspace_list shows the files there are`,
      );
    }
    const offset = input.offset ?? 0;
    const content = file.content.slice(
      offset,
      input.length === undefined ? undefined : offset + input.length,
    );
    const remainingChars = Math.max(0, file.content.length - offset - content.length);
    return {
      value: {
        path: file.path,
        version: file.version,
        sha256: file.sha256,
        size: file.size,
        offset,
        content,
        remainingChars,
      },
      text: content,
      // What the model keeps when the slice overflows: enough to page through with offset and length.
      summary: { path: file.path, version: file.version, offset, totalChars: file.content.length },
      // The file itself holds the text: an overflow points at it instead of storing a copy.
      storedAt: { path: file.path, sha256: file.sha256, size: file.size },
    };
  },
};
