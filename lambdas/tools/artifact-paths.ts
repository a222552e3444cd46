import { sha256Hex } from "../core/goal/canonical-json";

/** Workspace folder for tool output too large to inline. Reserved: `workspace_write` may not write here. */
export const ARTIFACTS_DIR = ".artifacts";

export function isReservedPath(path: string): boolean {
  return path === ARTIFACTS_DIR || path.startsWith(`${ARTIFACTS_DIR}/`);
}

/**
 * `.artifacts/<iteration>-<toolUseId>.txt`. Bedrock ids are `[A-Za-z0-9_-]{1,64}`; any other id is
 * reduced to those characters plus a short hash of the original, so the path stays one valid
 * WorkspacePathSchema segment (no `/`, no `..`) and two different ids never share a file.
 */
export function overflowArtifactPath(iteration: number, toolUseId: string): string {
  return `${ARTIFACTS_DIR}/${iteration}-${safeToolUseId(toolUseId)}.txt`;
}

/**
 * `.artifacts/<iteration>-<toolUseId>-<n>.<extension>`: the n-th image or resource one call
 * returned (MCP tools), beside the call's overflow file.
 */
export function contentArtifactPath(
  iteration: number,
  toolUseId: string,
  index: number,
  extension: string,
): string {
  return `${ARTIFACTS_DIR}/${iteration}-${safeToolUseId(toolUseId)}-${index}.${extension}`;
}

function safeToolUseId(toolUseId: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(toolUseId)
    ? toolUseId
    : `${toolUseId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)}-${sha256Hex(toolUseId).slice(0, 12)}`;
}
