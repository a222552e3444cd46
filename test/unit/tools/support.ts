import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { sha256Hex } from "../../../lambdas/core/goal/canonical-json";
import type { Outbox, OutboxDeliveryOutcome, OutboxMessage } from "../../../lambdas/core/ports/outbox";
import type { ToolCallContext } from "../../../lambdas/core/ports/tool-runner";
import {
  type Workspace,
  type WorkspaceFile,
  WorkspaceFileTooLargeError,
  type WorkspaceVersion,
} from "../../../lambdas/core/ports/workspace";

export const NOW = new Date("2025-06-01T12:00:00.000Z");

/** Test-only Workspace with the port's semantics: identical content changes nothing, versions count changes. */
export class InMemoryWorkspace implements Workspace {
  readonly files = new Map<string, WorkspaceFile>();
  /** What each replaced version held, by `<goalId>/<path>#<version>`; a deletion leaves `deleted`. */
  readonly versions = new Map<string, WorkspaceVersion>();
  /** Files deleted, by `<goalId>/<path>`: the version their tombstone has. */
  readonly tombstones = new Map<string, number>();
  writes = 0;

  constructor(
    private readonly now: () => Date = () => NOW,
    /** The largest file kept, as the store's payload maximum. */
    private readonly maxFileBytes = Number.POSITIVE_INFINITY,
  ) {}

  async writeFile(input: Parameters<Workspace["writeFile"]>[0]) {
    this.writes += 1;
    const size = Buffer.byteLength(input.content, "utf8");
    if (size > this.maxFileBytes) throw new WorkspaceFileTooLargeError(input.path, size, this.maxFileBytes);
    const key = `${input.goalId}/${input.path}`;
    const existing = this.files.get(key);
    const sha256 = sha256Hex(input.content);
    if (existing && existing.sha256 === sha256) return { file: existing, changed: false };
    const tombstone = this.tombstones.get(key);
    if (existing) this.versions.set(`${key}#${existing.version}`, live(existing));
    if (tombstone !== undefined) this.versions.set(`${key}#${tombstone}`, { deleted: true });
    this.tombstones.delete(key);
    const file: WorkspaceFile = {
      goalId: input.goalId,
      path: input.path,
      content: input.content,
      sha256,
      size: Buffer.byteLength(input.content, "utf8"),
      version: (existing?.version ?? tombstone ?? 0) + 1,
      previous: existing ? { content: existing.content, sha256: existing.sha256 } : null,
      writtenBy: input.writtenBy,
      updatedAt: this.now().toISOString(),
    };
    this.files.set(key, file);
    return { file, changed: true };
  }

  async readFile(goalId: string, path: string) {
    return this.files.get(`${goalId}/${path}`);
  }

  async deleteFile(input: Parameters<Workspace["deleteFile"]>[0]) {
    const key = `${input.goalId}/${input.path}`;
    const existing = this.files.get(key);
    if (!existing) return { deleted: false };
    this.versions.set(`${key}#${existing.version}`, live(existing));
    this.files.delete(key);
    this.tombstones.set(key, existing.version + 1);
    return { deleted: true };
  }

  async readVersion(goalId: string, path: string, version: number): Promise<WorkspaceVersion | undefined> {
    const key = `${goalId}/${path}`;
    const current = this.files.get(key);
    if (current?.version === version) return live(current);
    if (this.tombstones.get(key) === version) return { deleted: true };
    return this.versions.get(`${key}#${version}`);
  }

  async listFiles(goalId: string) {
    return [...this.files.values()]
      .filter((file) => file.goalId === goalId)
      .map(({ path, sha256, size, version, updatedAt }) => ({ path, sha256, size, version, updatedAt }));
  }
}

function live(file: WorkspaceFile): WorkspaceVersion {
  return { deleted: false, content: file.content, sha256: file.sha256 };
}

/** Test-only Outbox: first put of a messageId wins, as the port requires. */
export class InMemoryOutbox implements Outbox {
  readonly messages = new Map<string, OutboxMessage>();

  async putMessage(message: OutboxMessage) {
    const existing = this.messages.get(message.messageId);
    if (existing) return { message: existing, created: false };
    this.messages.set(message.messageId, message);
    return { message, created: true };
  }

  /** Only a `sending` message takes the outcome, as the port requires. */
  async recordDelivery(_goalId: string, messageId: string, outcome: OutboxDeliveryOutcome) {
    const existing = this.messages.get(messageId);
    if (!existing) throw new Error(`no outbox message ${messageId}`);
    if (existing.delivery?.state !== "sending") return existing;
    const updated = { ...existing, delivery: outcome };
    this.messages.set(messageId, updated);
    return updated;
  }

  async listMessages(goalId: string) {
    return [...this.messages.values()].filter((message) => message.goalId === goalId);
  }
}

/** A Workspace whose store is down: every call throws, as an unreachable table would. */
export class UnavailableWorkspace extends InMemoryWorkspace {
  override async writeFile(): Promise<never> {
    throw new Error("store unavailable");
  }
  override async readFile(): Promise<never> {
    throw new Error("store unavailable");
  }
  override async listFiles(): Promise<never> {
    throw new Error("store unavailable");
  }
}

export function callContext(overrides: Partial<ToolCallContext> = {}): ToolCallContext {
  return {
    goalId: "g-tools",
    tenantId: "local",
    runId: "r1",
    iteration: 3,
    grantedTools: ["workspace_list", "workspace_read", "workspace_write"],
    preAuthorized: [],
    truncated: false,
    idempotencyKey: "key-g-tools-r1-3",
    ...overrides,
  };
}

export interface LocalHttpServer {
  readonly origin: string;
  readonly requests: { method: string; url: string }[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (`port`, an ephemeral one by default) that answers with
 * `handler`, recording each request. A port already taken is an error naming it.
 */
export async function startHttpServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  port = 0,
): Promise<LocalHttpServer> {
  const requests: { method: string; url: string }[] = [];
  const server: Server = createServer((request, response) => {
    requests.push({ method: request.method ?? "", url: request.url ?? "" });
    handler(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("server has no TCP address");
  return {
    origin: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
