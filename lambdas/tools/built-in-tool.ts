import type { ArtifactObservation } from "../core/goal/evidence/cycle-observations";
import type { JsonValue } from "../core/goal/goal-change";
import type { ToolUseBlock } from "../core/ports/model-client";
import type { Outbox } from "../core/ports/outbox";
import type { ToolCallContext, ToolDefinition } from "../core/ports/tool-runner";
import type { Workspace } from "../core/ports/workspace";
import type * as z from "../core/zod";
import type { NotifyChannels, NotifyDestination } from "./notify-destinations";
import type { ToolCallError } from "./tool-call-error";

export type JsonObject = { [key: string]: JsonValue };

/** What `http_request` may reach and how long and how much it reads. */
export interface HttpPolicy {
  /** Host names (no port) GET requests may go to; compared case-insensitively. */
  readonly allowedHosts: readonly string[];
  readonly fetch: typeof globalThis.fetch;
  readonly timeoutMs: number;
  /** Bytes of a response body kept; the rest is dropped and `bodyTruncated` is set. */
  readonly maxResponseBytes: number;
}

/** One message for one destination, as `notify` hands it to the sender. */
export interface NotifySendRequest {
  readonly destination: NotifyDestination;
  /** The configured channel name the model used. */
  readonly channel: string;
  readonly message: string;
  readonly goalId: string;
  /** The call's idempotency key: a webhook gets it as `Idempotency-Key`. */
  readonly idempotencyKey: string;
}

/**
 * Sends one message and answers the provider's id of it (Slack `ts`, SES MessageId, the webhook's
 * HTTP status). Throws when the provider did not take it; never retries what may have arrived.
 */
export type NotifySender = (request: NotifySendRequest) => Promise<{ readonly receipt: string }>;

/** How `notify` delivers. */
export interface NotifyPolicy {
  /**
   * `outbox`: the message is only recorded in the outbox (the local runtime's default); `send`: it
   * goes to its channel's destination, the outbox being the ledger that makes it once.
   */
  readonly mode: "outbox" | "send";
  /** The configured channels (`notify.channels`), by the name the model passes. */
  readonly channels: NotifyChannels;
  readonly send: NotifySender;
}

/** Everything a built-in tool may touch: injected, so tests run them against in-memory stores. */
export interface ToolEnvironment {
  readonly call: ToolUseBlock;
  readonly context: ToolCallContext;
  readonly workspace: Workspace;
  readonly outbox: Outbox;
  readonly http: HttpPolicy;
  readonly notify: NotifyPolicy;
  readonly now: () => Date;
}

/** What a tool returns. The runner decides what the model sees inline and what becomes an artifact. */
export interface ToolOutput {
  /** The full result: hashed for the observation, sent inline to the model when it is small enough. */
  readonly value: JsonObject;
  /** The bulk text of the result (a file's content, a response body): what an overflow artifact holds. */
  readonly text?: string;
  /** The small fields of `value` (status, headers) kept in the model's reference when the result overflows. */
  readonly summary?: JsonObject;
  /** A workspace file that already holds `text` in full: an overflow references it instead of copying it. */
  readonly storedAt?: { readonly path: string; readonly sha256: string; readonly size: number };
  /** Workspace files the call wrote (evidence for `artifact` checks). */
  readonly artifacts?: readonly ArtifactObservation[];
}

/**
 * A built-in tool: its definition (name, description, zod input schema, risk) plus how to run it.
 * `refuse` is a policy check that runs before any approval is asked for: a call the tool would refuse
 * anyway never waits for a human.
 */
export interface BuiltInTool<S extends z.core.$ZodType = z.core.$ZodType> extends ToolDefinition<S> {
  refuse?(input: z.output<S>, env: ToolEnvironment): ToolCallError | undefined;
  /** Throws ToolCallError for failures the model can act on; anything else is an infrastructure failure. */
  execute(input: z.output<S>, env: ToolEnvironment): Promise<ToolOutput>;
  /** What `execute` starts with that is safe ahead of the step's commit (see ToolRunner.stage). */
  stage?(input: z.output<S>, env: ToolEnvironment): Promise<void>;
}
