import * as z from "zod";
import { WorkspacePathSchema } from "../core/goal/goal-spec";
import type { BuiltInTool } from "./built-in-tool";
import { ToolCallError } from "./tool-call-error";

export const WorkspaceReadInputSchema = z.strictObject({
  path: WorkspacePathSchema.describe("Relative path of the file in the goal's workspace"),
  offset: z
    .number()
    .int()
    .min(0)
    .max(100_000_000)
    .optional()
    .describe("First character to return (default 0): page through a file too large to read at once"),
  length: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe("Most characters to return (default: the rest of the file)"),
});

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
