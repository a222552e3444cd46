import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolDefinition } from "../../core/goal/frozen-tools";
import type { JsonValue } from "../../core/goal/goal-change";
import type { McpGatewayError } from "../../tools/mcp-gateway-contract";
import type { McpServerEntry } from "../../tools/mcp-servers";

/** What this client calls itself in `initialize`. */
const CLIENT_INFO = { name: "goal-loops", version: "0.1.0" };

/**
 * A listing's time limit: a goal's POST waits for it behind API Gateway's 29 seconds, so it is
 * shorter than a call's.
 */
const LIST_TIMEOUT_MS = 10_000;

/** The tool-call metadata key a server may use to do a retried call's work once. */
export const IDEMPOTENCY_META_KEY = "goal-loops/idempotencyKey";

/** A failure talking to an MCP server, with the stable name the model and the API see. */
export class McpServerCallError extends Error {
  constructor(
    override readonly name: McpGatewayError["name"],
    message: string,
    /** True when the server never got the request (nothing ran): reconnecting and sending again is safe. */
    readonly notDelivered = false,
  ) {
    super(message);
  }
}

/** The raw result of `tools/call`, as the SDK parsed it. */
export interface McpRawCallResult {
  readonly content: readonly Record<string, unknown>[];
  readonly structuredContent?: Record<string, JsonValue>;
  readonly isError?: boolean;
}

/**
 * Sessions with the configured MCP servers over Streamable HTTP (the official SDK client), one per
 * server, kept for the container's later invocations: a warm call costs a request, not a
 * handshake (FACTS: connect 120–145 ms cold). A session that fails is dropped, so the next use
 * connects again; a call the server never got (refused connection, an expired session, refused
 * credentials, then read afresh) is sent once more on a new session. Every request has a time limit, so a server that hangs is an error, never
 * a stuck goal.
 */
export class McpConnections {
  private readonly sessions = new Map<string, Promise<Client>>();

  /** Servers whose next connection reads the credential afresh (after a 401 or 403). */
  private readonly stale = new Set<string>();

  /**
   * @param authValue the server's credential; `fresh` asks past any cache (a rotated secret)
   */
  constructor(
    private readonly authValue: (
      server: McpServerEntry,
      options?: { readonly fresh: boolean },
    ) => Promise<string | undefined>,
  ) {}

  async listTools(server: McpServerEntry): Promise<McpToolDefinition[]> {
    return this.withSession(server, async (client) => {
      const tools: McpToolDefinition[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: Math.min(server.callTimeoutMs, LIST_TIMEOUT_MS),
        });
        for (const tool of page.tools) {
          tools.push({
            name: tool.name,
            description: tool.description,
            inputSchema: tool.inputSchema as Record<string, JsonValue>,
            annotations: tool.annotations,
          });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return tools;
    });
  }

  async callTool(
    server: McpServerEntry,
    call: { tool: string; arguments: Record<string, JsonValue>; idempotencyKey: string },
  ): Promise<McpRawCallResult> {
    return this.withSession(server, async (client) => {
      const result = await client.callTool(
        {
          name: call.tool,
          arguments: call.arguments,
          _meta: { [IDEMPOTENCY_META_KEY]: call.idempotencyKey },
        },
        CallToolResultSchema,
        { timeout: server.callTimeoutMs },
      );
      return result as McpRawCallResult;
    });
  }

  async close(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map(async (session) => (await session).close()));
  }

  /**
   * Runs `use` on the server's session, once more on a new session when the server never got the
   * request, or when it refused the credential (401/403: nothing ran): the credential is then read
   * afresh, so a secret rotated since it was cached is picked up at once instead of failing the
   * call until the cache expires.
   */
  private async withSession<T>(server: McpServerEntry, use: (client: Client) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await use(await this.session(server));
      } catch (error) {
        const failure = asServerError(server, error);
        this.drop(server);
        const refused = failure.name === "McpUnauthorized" && server.auth !== undefined;
        if (refused) this.stale.add(server.name);
        if (!(failure.notDelivered || refused) || attempt === 2) throw failure;
      }
    }
  }

  private session(server: McpServerEntry): Promise<Client> {
    let session = this.sessions.get(server.name);
    if (!session) {
      session = this.connect(server);
      this.sessions.set(server.name, session);
    }
    return session;
  }

  private drop(server: McpServerEntry): void {
    const session = this.sessions.get(server.name);
    this.sessions.delete(server.name);
    void session?.then(
      (client) => client.close().catch(() => undefined),
      () => undefined,
    );
  }

  private async connect(server: McpServerEntry): Promise<Client> {
    const fresh = this.stale.delete(server.name);
    const header = await this.authValue(server, { fresh });
    const headers = server.auth && header !== undefined ? { [server.auth.header]: header } : undefined;
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      ...(headers === undefined ? {} : { requestInit: { headers } }),
    });
    const client = new Client(CLIENT_INFO);
    await client.connect(transport, { timeout: server.connectTimeoutMs });
    return client;
  }
}

/** The stable error for what went wrong, and whether the server can have run anything. */
export function asServerError(server: McpServerEntry, error: unknown): McpServerCallError {
  if (error instanceof McpServerCallError) return error;
  const where = `MCP server '${server.name}' (${server.url})`;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      return new McpServerCallError("McpTimeout", `${where} did not answer in time: ${error.message}`);
    }
    if (error.code === ErrorCode.ConnectionClosed) {
      return new McpServerCallError(
        "McpServerUnreachable",
        `${where} closed the connection: ${error.message}`,
      );
    }
    return new McpServerCallError("McpProtocolError", `${where} answered with an error: ${error.message}`);
  }
  if (error instanceof StreamableHTTPError) {
    if (error.code === 401 || error.code === 403) {
      return new McpServerCallError("McpUnauthorized", `${where} refused the credentials: ${error.message}`);
    }
    // 404 is a session the server no longer knows (it restarted): nothing ran, a new session may send it.
    return new McpServerCallError(
      error.code === 404 ? "McpSessionExpired" : "McpProtocolError",
      `${where} answered HTTP ${error.code ?? "?"}: ${error.message}`,
      error.code === 404,
    );
  }
  const code = networkCode(error);
  if (code !== undefined) {
    // A refused or unresolvable connection never reached the server.
    const notDelivered = code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN";
    return new McpServerCallError("McpServerUnreachable", `${where} is unreachable: ${code}`, notDelivered);
  }
  if (error instanceof TypeError && error.message === "fetch failed") {
    // The connection broke (the server died mid-request): it may have run the call, so no resend.
    const cause = error.cause instanceof Error ? error.cause.message : "fetch failed";
    return new McpServerCallError("McpServerUnreachable", `${where} is unreachable: ${cause}`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new McpServerCallError("McpProtocolError", `${where} failed: ${message}`);
}

/** The system error code under a failed fetch (`TypeError: fetch failed`, cause `ECONNREFUSED`). */
function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth += 1) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === "string" && /^(E[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
    current = cause;
  }
  return undefined;
}
