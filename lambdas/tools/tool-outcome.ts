import { canonicalJson, sha256Hex } from "../core/goal/canonical-json";
import type { ArtifactObservation, ToolResultObservation } from "../core/goal/evidence/cycle-observations";
import type { ToolUseBlock } from "../core/ports/model-client";
import type { ToolOutcome } from "../core/ports/tool-runner";
import { WorkspaceFileTooLargeError } from "../core/ports/workspace";
import { overflowArtifactPath } from "./artifact-paths";
import type { JsonObject, ToolEnvironment, ToolOutput } from "./built-in-tool";
import { ToolCallError } from "./tool-call-error";

const HEAD_BYTES = 512;

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** At most `maxBytes` UTF-8 bytes of `text`, never cutting a character, marked with `…` when cut. */
export function excerpt(text: string, maxBytes: number): string {
  if (byteLength(text) <= maxBytes) return text;
  const marker = "…";
  const room = Math.max(0, maxBytes - byteLength(marker));
  // `stream: true` holds back a character cut in half at the bound instead of emitting U+FFFD.
  const head = new TextDecoder().decode(Buffer.from(text, "utf8").subarray(0, room), { stream: true });
  return head + marker;
}

/** An error result: the model reads `Name: message`; verify may match either in a `tool_result` check. */
export function errorOutcome(
  call: ToolUseBlock,
  error: ToolCallError,
  inlineLimitBytes: number,
): ToolOutcome {
  const value = { error: error.name, message: error.message };
  const text = excerpt(`${error.name}: ${error.message}`, inlineLimitBytes);
  const small = byteLength(JSON.stringify(value)) <= inlineLimitBytes;
  return {
    result: { toolUseId: call.toolUseId, status: "error", content: [{ text }] },
    errorName: error.name,
    observation: {
      tool: call.name,
      status: "error",
      resultText: text,
      ...(small ? { resultJson: value } : {}),
      sha256: sha256Hex(canonicalJson(value)),
    },
    artifacts: [],
  };
}

interface StoredOutput {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
}

/**
 * Writes the full output as a workspace file. An output larger than the store keeps (the payload
 * maximum, 50 MiB by default) is the tool call's error, naming the size and the limit.
 */
async function storeOverflow(fullText: string, env: ToolEnvironment): Promise<StoredOutput | ToolCallError> {
  const { goalId, runId, iteration } = env.context;
  try {
    const { file } = await env.workspace.writeFile({
      goalId,
      path: overflowArtifactPath(iteration, env.call.toolUseId),
      content: fullText,
      writtenBy: { runId, iteration, toolUseId: env.call.toolUseId },
    });
    return { path: file.path, sha256: file.sha256, size: file.size };
  } catch (error) {
    if (!(error instanceof WorkspaceFileTooLargeError)) throw error;
    return new ToolCallError(
      "ToolResultTooLarge",
      `The result of ${env.call.name} is ${error.size} bytes; tool results are kept up to ${error.limitBytes} bytes. Ask for less at once.`,
      { cause: error },
    );
  }
}

/** What the model gets instead of an output over the bound; shrunk until it fits under the bound itself. */
function overflowReference(
  output: ToolOutput,
  fullText: string,
  stored: StoredOutput,
  inlineLimitBytes: number,
): JsonObject {
  const outputTooLarge: JsonObject = {
    bytes: byteLength(JSON.stringify(output.value)),
    inlineLimitBytes,
    path: stored.path,
    size: stored.size,
    sha256: stored.sha256,
  };
  const hint = `Too large to inline: the full output is the workspace file '${stored.path}'; read parts of it with workspace_read {path, offset, length}.`;
  const head = excerpt(fullText, Math.min(HEAD_BYTES, Math.floor(inlineLimitBytes / 4)));
  const candidates: JsonObject[] = [
    { ...(output.summary ?? {}), outputTooLarge, head, hint },
    { outputTooLarge, head, hint },
    { outputTooLarge, hint },
  ];
  const fitting = candidates.find((candidate) => byteLength(JSON.stringify(candidate)) <= inlineLimitBytes);
  return fitting ?? { outputTooLarge };
}

/**
 * A success result. Output within `inlineLimitBytes` (as JSON) is sent inline; larger output is
 * written to the workspace (or, when a workspace file already holds it, pointed at) and the model
 * gets a reference with a short head. The observation always hashes the full output.
 */
export async function successOutcome(
  output: ToolOutput,
  env: ToolEnvironment,
  inlineLimitBytes: number,
): Promise<ToolOutcome> {
  const { call } = env;
  const sha256 = sha256Hex(canonicalJson(output.value));
  const written: ArtifactObservation[] = [...(output.artifacts ?? [])];

  if (byteLength(JSON.stringify(output.value)) <= inlineLimitBytes) {
    const observation: ToolResultObservation = {
      tool: call.name,
      status: "success",
      ...(output.text !== undefined ? { resultText: output.text } : {}),
      resultJson: output.value,
      sha256,
    };
    return {
      result: { toolUseId: call.toolUseId, status: "success", content: [{ json: output.value }] },
      observation,
      artifacts: written,
    };
  }

  const fullText = output.text ?? JSON.stringify(output.value, null, 2);
  const stored = output.storedAt ?? (await storeOverflow(fullText, env));
  if (stored instanceof ToolCallError) return errorOutcome(call, stored, inlineLimitBytes);
  if (!output.storedAt) written.push({ path: stored.path, sha256: stored.sha256 });
  return {
    result: {
      toolUseId: call.toolUseId,
      status: "success",
      content: [{ json: overflowReference(output, fullText, stored, inlineLimitBytes) }],
    },
    observation: {
      tool: call.name,
      status: "success",
      resultText: excerpt(output.text ?? canonicalJson(output.value), inlineLimitBytes),
      sha256,
    },
    artifacts: written,
  };
}
