import { WorkspacePathSchema } from "../core/goal/goal-spec";
import { WorkspaceFileTooLargeError } from "../core/ports/workspace";
import * as z from "../core/zod";
import { ARTIFACTS_DIR, isReservedPath } from "./artifact-paths";
import type { BuiltInTool } from "./built-in-tool";
import { ToolCallError } from "./tool-call-error";

export const WorkspaceWriteInputSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    path: WorkspacePathSchema.check(
      z.refine((path) => !isReservedPath(path), {
        message: `'${ARTIFACTS_DIR}/' is reserved for tool output the runner stores`,
      }),
    ).register(z.globalRegistry, {
      description: "Relative path in the goal's workspace, e.g. out/report.md",
    }),
    content: z.string().register(z.globalRegistry, {
      description: "The file's full new content (UTF-8 text); replaces any previous content",
    }),
  }),
);

/** Reversible: the store keeps the replaced content, so a compensation can restore it. */
export const workspaceWriteTool: BuiltInTool<typeof WorkspaceWriteInputSchema> = {
  name: "workspace_write",
  description:
    "Create or replace a text file in the goal's workspace. Files written here are the artifacts success checks look at.",
  inputSchema: WorkspaceWriteInputSchema,
  risk: "reversible",
  // The version this write will replace is kept ahead, while the step commits to running it.
  async stage(input, env) {
    await env.workspace.stageWrite?.({
      goalId: env.context.goalId,
      path: input.path,
      content: input.content,
    });
  },
  async execute(input, env) {
    const writtenBy = {
      runId: env.context.runId,
      iteration: env.context.iteration,
      toolUseId: env.call.toolUseId,
    };
    try {
      const { file, changed } = await env.workspace.writeFile({
        goalId: env.context.goalId,
        path: input.path,
        content: input.content,
        writtenBy,
      });
      return {
        value: { path: file.path, sha256: file.sha256, size: file.size, version: file.version, changed },
        artifacts: [{ path: file.path, sha256: file.sha256 }],
      };
    } catch (error) {
      // The model chose the content, so a file too large for the store is its error to fix, not a crash.
      if (error instanceof WorkspaceFileTooLargeError) {
        throw new ToolCallError("WorkspaceFileTooLarge", `Cannot write '${input.path}': ${error.message}`, {
          cause: error,
        });
      }
      throw error;
    }
  },
};
