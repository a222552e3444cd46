import * as z from "zod";
import type { McpServerEntry } from "../../lambdas/tools/mcp-servers";
import { wholeNumber } from "./parse-settings";

/**
 * `tools.mcp` of `goal-loops.config.json`: MCP servers reached over Streamable HTTP, whose tools a
 * GoalSpec may grant as `<server>__<tool>` (DESIGN §6 "Tools").
 */

export const DEFAULT_MCP_CONNECT_TIMEOUT_SECONDS = 5;
export const DEFAULT_MCP_CALL_TIMEOUT_SECONDS = 30;
/** A call must end inside Act's two minutes, with a connect before it. */
export const MAX_MCP_CALL_TIMEOUT_SECONDS = 90;
export const DEFAULT_MCP_AUTH_HEADER = "Authorization";

/** A server name is the prefix of its tools' names: no `__`, room left for the tool's own name. */
const SERVER_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9-]{0,31}$/;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The environment variable the local stack reads a server's auth header value from by default. */
export function defaultMcpAuthEnv(server: string): string {
  return `MCP_${server.toUpperCase().replace(/-/g, "_")}_AUTH`;
}

const McpUrlSchema = z.url("must be a URL such as https://mcp.example.com/mcp").refine((url) => {
  const { protocol, hostname } = new URL(url);
  return protocol === "https:" || (protocol === "http:" && LOOPBACK_HOSTS.has(hostname));
}, "must be https (plain http only to localhost or 127.0.0.1, for local servers)");

export const McpAuthConfigSchema = z
  .strictObject({
    header: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, "must be an HTTP header name")
      .default(DEFAULT_MCP_AUTH_HEADER)
      .describe("The request header that carries the credential"),
    secretName: z
      .string()
      .regex(/^[A-Za-z0-9/_+=.@-]{1,512}$/, "must be a Secrets Manager secret name")
      .optional()
      .describe("Deployed: the Secrets Manager secret whose SecretString is the header's value"),
    env: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name in upper case")
      .optional()
      .describe(
        "Locally (npm start): the environment variable holding the header's value; default MCP_<NAME>_AUTH",
      ),
  })
  .describe("The credential sent with every request to the server");

export const McpServerConfigSchema = z
  .strictObject({
    name: z
      .string()
      .regex(SERVER_NAME_PATTERN, "must start with a letter and hold up to 32 letters, digits or -")
      .describe("The server's name: its tools are named <name>__<tool>"),
    url: McpUrlSchema.describe("The server's Streamable HTTP endpoint, e.g. https://mcp.example.com/mcp"),
    allow: z
      .array(z.string().min(1))
      .optional()
      .describe("Only these of the server's tools may be granted; default: every tool it lists"),
    risk: z
      .record(z.string().min(1), z.enum(["read", "reversible", "irreversible"]))
      .optional()
      .describe("Risk per tool name, over what the tool's MCP annotations say"),
    auth: McpAuthConfigSchema.optional(),
    connectTimeoutSeconds: wholeNumber({ min: 1, max: 30 }, "seconds")
      .default(DEFAULT_MCP_CONNECT_TIMEOUT_SECONDS)
      .describe("How long connecting (initialize) may take"),
    callTimeoutSeconds: wholeNumber({ min: 1, max: MAX_MCP_CALL_TIMEOUT_SECONDS }, "seconds")
      .default(DEFAULT_MCP_CALL_TIMEOUT_SECONDS)
      .describe("How long one tool call may take before it is a McpTimeout tool error"),
  })
  .describe("An MCP server reached over Streamable HTTP");

export const McpServersConfigSchema = z
  .array(McpServerConfigSchema)
  .max(20)
  .default([])
  .superRefine((servers, context) => {
    const seen = new Set<string>();
    servers.forEach((server, index) => {
      if (seen.has(server.name)) {
        context.addIssue({
          code: "custom",
          path: [index, "name"],
          message: `'${server.name}' is named twice`,
        });
      }
      seen.add(server.name);
    });
  })
  .describe("MCP servers whose tools a GoalSpec may grant as <server>__<tool> or <server>__*");

export type McpServerConfig = z.output<typeof McpServerConfigSchema>;

/**
 * A configured server as the McpGateway function (and `goal-loops tools`) reaches it: times in
 * milliseconds, the local credential variable named.
 */
export function mcpServerEntry(server: McpServerConfig): McpServerEntry {
  return {
    name: server.name,
    url: server.url,
    ...(server.allow === undefined ? {} : { allow: server.allow }),
    ...(server.risk === undefined ? {} : { risk: server.risk }),
    ...(server.auth === undefined
      ? {}
      : {
          auth: {
            header: server.auth.header,
            env: server.auth.env ?? defaultMcpAuthEnv(server.name),
            ...(server.auth.secretName === undefined ? {} : { secretId: server.auth.secretName }),
          },
        }),
    connectTimeoutMs: server.connectTimeoutSeconds * 1000,
    callTimeoutMs: server.callTimeoutSeconds * 1000,
  };
}

/** The credential sent with every request to an MCP server. */
export interface McpAuthConfigInput {
  /**
   * The request header that carries the credential.
   *
   * @default "Authorization"
   */
  readonly header?: string;
  /**
   * Deployed: the Secrets Manager secret (name) whose SecretString is the header's whole value,
   * e.g. `Bearer abc…`. Only the McpGateway function may read it.
   *
   * @default - none: nothing is sent deployed
   */
  readonly secretName?: string;
  /**
   * Locally (`npm start`): the environment variable holding the header's value.
   *
   * @default - `MCP_<NAME>_AUTH` (the server's name in upper case, `-` as `_`)
   */
  readonly env?: string;
}

/** An MCP server reached over Streamable HTTP (DESIGN §6 "Tools"). */
export interface McpServerConfigInput {
  /** The server's name (a letter, then up to 31 letters, digits or `-`): its tools are `<name>__<tool>`. */
  readonly name: string;
  /** The Streamable HTTP endpoint: https, or plain http to localhost / 127.0.0.1 only. */
  readonly url: string;
  /**
   * Only these of the server's tools (their own names) may be granted.
   *
   * @default - every tool the server lists
   */
  readonly allow?: readonly string[];
  /**
   * Risk per tool name, over the MCP annotations (`readOnlyHint: true` → read,
   * `destructiveHint: false` → reversible, anything else → irreversible).
   *
   * @default - the annotations decide
   */
  readonly risk?: Readonly<Record<string, "read" | "reversible" | "irreversible">>;
  /** @default - no credential is sent */
  readonly auth?: McpAuthConfigInput;
  /**
   * How long connecting may take, in seconds (1 to 30).
   *
   * @default 5
   */
  readonly connectTimeoutSeconds?: number;
  /**
   * How long one tool call may take, in seconds (1 to 90, inside Act's two minutes).
   *
   * @default 30
   */
  readonly callTimeoutSeconds?: number;
}

McpServerConfigSchema satisfies z.ZodType<McpServerConfig, McpServerConfigInput>;
