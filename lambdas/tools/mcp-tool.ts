import type { ArtifactObservation } from "../core/goal/evidence/cycle-observations";
import type { FrozenTool } from "../core/goal/frozen-tools";
import type { JsonValue } from "../core/goal/goal-change";
import { clip } from "../core/goal/text";
import { WorkspaceFileTooLargeError } from "../core/ports/workspace";
import { contentArtifactPath } from "./artifact-paths";
import type { JsonObject, ToolEnvironment, ToolOutput } from "./built-in-tool";
import { type ToolInputCheck, toolInputCheck } from "./json-schema-input";
import type { McpContent, McpGatewayClient } from "./mcp-gateway-contract";
import { mcpToolSpec } from "./mcp-tool-spec";
import { ToolCallError } from "./tool-call-error";
import type { RegisteredTool } from "./tool-registry";

/** Characters of an MCP error text the model gets. */
const ERROR_TEXT_CHARS = 2000;

/**
 * An MCP tool as the goal froze it, run through the McpGateway function. The model gets the
 * definition it was offered at goal start; the gateway refuses the call if the server's tool is no
 * longer that definition. `isError` results, protocol errors, timeouts and an unreachable server
 * are tool errors the model reads, never a crash of the step: the loop goes on.
 */
export function mcpTool(tool: FrozenTool, gateway: McpGatewayClient): RegisteredTool {
  let checkInput: ToolInputCheck | undefined;
  return {
    name: tool.name,
    spec: mcpToolSpec(tool),
    prepare(input) {
      checkInput ??= toolInputCheck(tool.inputSchema, tool.name);
      const parsed = checkInput(input);
      return {
        risk: tool.risk,
        refuse: () => undefined,
        async execute(env) {
          const answer = await gateway.call({
            server: tool.server,
            tool: tool.tool,
            definitionHash: tool.definitionHash,
            arguments: parsed,
            goalId: env.context.goalId,
            toolUseId: env.call.toolUseId,
            idempotencyKey: env.context.idempotencyKey,
          });
          if ("error" in answer) {
            throw new ToolCallError(answer.error.name, clip(answer.error.message, ERROR_TEXT_CHARS));
          }
          const text = answer.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
          if (answer.isError) {
            const message = text.join("\n") || "the tool reported an error without a message";
            throw new ToolCallError("McpToolError", clip(`${tool.name}: ${message}`, ERROR_TEXT_CHARS));
          }
          return resultOf(answer.content, answer.structuredContent, env);
        },
      };
    },
  };
}

/**
 * Text and structured content become the result; images, audio and embedded resources become
 * workspace artifacts the result points at (their bytes would only fill the prompt); resource links
 * stay links.
 */
async function resultOf(
  content: readonly McpContent[],
  structured: Record<string, JsonValue> | undefined,
  env: ToolEnvironment,
): Promise<ToolOutput> {
  const texts: string[] = [];
  const links: JsonObject[] = [];
  const stored: JsonObject[] = [];
  const artifacts: ArtifactObservation[] = [];
  for (const [index, block] of content.entries()) {
    if (block.type === "text") {
      texts.push(block.text);
    } else if (block.type === "resource_link") {
      links.push({ uri: block.uri, ...(block.name ? { name: block.name } : {}) });
    } else {
      const file = await storeContent(block, index, env);
      artifacts.push({ path: file.path, sha256: file.sha256 });
      stored.push(file.reference);
    }
  }
  const text = texts.join("\n");
  const value: JsonObject = {
    ...(structured ?? (texts.length > 0 ? { text } : {})),
    ...(links.length > 0 ? { resourceLinks: links } : {}),
    ...(stored.length > 0 ? { artifacts: stored } : {}),
  };
  return { value, ...(text === "" ? {} : { text }), ...(artifacts.length > 0 ? { artifacts } : {}) };
}

type BinaryOrResource = Exclude<McpContent, { type: "text" | "resource_link" }>;

async function storeContent(
  block: BinaryOrResource,
  index: number,
  env: ToolEnvironment,
): Promise<{ path: string; sha256: string; reference: JsonObject }> {
  const { goalId, runId, iteration } = env.context;
  const { kind, mimeType, content, extension, uri } = describe(block);
  const path = contentArtifactPath(iteration, env.call.toolUseId, index, extension);
  try {
    const { file } = await env.workspace.writeFile({
      goalId,
      path,
      content,
      writtenBy: { runId, iteration, toolUseId: env.call.toolUseId },
    });
    const reference: JsonObject = {
      kind,
      path: file.path,
      bytes: file.size,
      ...(mimeType ? { mimeType } : {}),
      ...(uri ? { uri } : {}),
    };
    return { path: file.path, sha256: file.sha256, reference };
  } catch (error) {
    if (!(error instanceof WorkspaceFileTooLargeError)) throw error;
    throw new ToolCallError(
      "ToolResultTooLarge",
      `The ${kind} ${env.call.name} returned is ${error.size} bytes; tool results are kept up to ${error.limitBytes} bytes. Ask for less at once.`,
      { cause: error },
    );
  }
}

/** What one binary or resource block is stored as: base64 stays base64 text, named `.base64`. */
function describe(block: BinaryOrResource): {
  kind: string;
  mimeType?: string;
  content: string;
  extension: string;
  uri?: string;
} {
  if (block.type === "resource") {
    const { uri, mimeType, text, blob } = block.resource;
    return text !== undefined
      ? { kind: "resource", uri, ...(mimeType ? { mimeType } : {}), content: text, extension: "txt" }
      : {
          kind: "resource",
          uri,
          ...(mimeType ? { mimeType } : {}),
          content: blob ?? "",
          extension: "base64",
        };
  }
  const subtype = /^[a-z]+\/([a-z0-9.+-]+)/i.exec(block.mimeType)?.[1] ?? "bin";
  return {
    kind: block.type,
    mimeType: block.mimeType,
    content: block.data,
    extension: `${subtype.replace(/[^a-z0-9]/gi, "")}.base64`,
  };
}
