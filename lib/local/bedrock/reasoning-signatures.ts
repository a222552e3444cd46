import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "../../../lambdas/core/goal/canonical-json";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { isJsonObject, isRecord } from "../shared/json";

/**
 * The local endpoint's own reasoning signatures, standing in for the service's: an HMAC over the
 * model id, the conversation (goal, role, and everything the request held before the answer) and the
 * reasoning's text. Like the real ones they cannot be edited, moved to another conversation or read
 * by another model without the check failing. The key is fixed, not a secret: the point is that a
 * client cannot rebuild a block it changed, and that a stack restarted on its state folder still
 * checks the blocks it signed before.
 */
const SIGNING_KEY = "goal-loops local Bedrock endpoint: reasoning signatures";

/** Bytes no UTF-8 text starts with: a client that treats redacted content as text breaks visibly. */
const REDACTED_MAGIC = Buffer.from([0xff, 0x00]);

/** What a signature binds a reasoning block to. */
export interface ReasoningBinding {
  readonly modelId: string;
  readonly goalId: string;
  readonly role: string;
  /** `prefixHash` of the request the block answered (system, tools, every message before it). */
  readonly prefix: string;
}

const PAYLOAD_KEYS = ["modelId", "goalId", "role", "prefix"] as const;

function hmac(payload: string, content: string): Buffer {
  return createHmac("sha256", SIGNING_KEY).update(`${payload}\n${content}`, "utf8").digest();
}

function encodePayload(binding: ReasoningBinding): string {
  const { modelId, goalId, role, prefix } = binding;
  return Buffer.from(JSON.stringify({ modelId, goalId, role, prefix }), "utf8").toString("base64url");
}

function decodePayload(payload: string): ReasoningBinding | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const [modelId, goalId, role, prefix] = PAYLOAD_KEYS.map((key) => value[key]);
  if (typeof modelId !== "string" || typeof goalId !== "string") return undefined;
  if (typeof role !== "string" || typeof prefix !== "string") return undefined;
  return { modelId, goalId, role, prefix };
}

/** The signature of a reasoning text block: `<payload>.<hmac>`, both base64url. */
export function signReasoningText(binding: ReasoningBinding, text: string): string {
  const payload = encodePayload(binding);
  return `${payload}.${hmac(payload, `text:${text}`).toString("base64url")}`;
}

/** The bytes of a redacted reasoning block: opaque, and signed like a text block's signature. */
export function redactedReasoningBytes(binding: ReasoningBinding): Buffer {
  const payload = encodePayload(binding);
  const token = `${payload}.${hmac(payload, "redacted").toString("base64url")}`;
  return Buffer.concat([REDACTED_MAGIC, Buffer.from(token, "utf8")]);
}

/** What a block sent back turned out to be bound to, or why it cannot be read at all. */
export type ReasoningCheck =
  | { readonly valid: true; readonly binding: ReasoningBinding }
  | { readonly valid: false; readonly why: "unsigned" | "tampered" };

function checkToken(token: string, content: string): ReasoningCheck {
  const [payload, mac, ...rest] = token.split(".");
  if (payload === undefined || mac === undefined || rest.length > 0) return { valid: false, why: "tampered" };
  const binding = decodePayload(payload);
  const expected = hmac(payload, content);
  const given = Buffer.from(mac, "base64url");
  if (binding === undefined || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { valid: false, why: "tampered" };
  }
  return { valid: true, binding };
}

/**
 * Checks one `reasoningContent` block of a request (its wire JSON): a text block against its
 * signature, a redacted block against its own bytes (base64 on the wire).
 */
export function checkReasoningBlock(reasoning: JsonObject): ReasoningCheck {
  const text = isJsonObject(reasoning.reasoningText) ? reasoning.reasoningText : undefined;
  if (text !== undefined) {
    const { signature } = text;
    if (typeof signature !== "string" || signature === "") return { valid: false, why: "unsigned" };
    return checkToken(signature, `text:${typeof text.text === "string" ? text.text : ""}`);
  }
  if (typeof reasoning.redactedContent !== "string") return { valid: false, why: "tampered" };
  const bytes = Buffer.from(reasoning.redactedContent, "base64");
  if (!bytes.subarray(0, REDACTED_MAGIC.length).equals(REDACTED_MAGIC))
    return { valid: false, why: "tampered" };
  return checkToken(bytes.subarray(REDACTED_MAGIC.length).toString("utf8"), "redacted");
}

/** A list of Converse blocks without its cache points: moving a cache point edits nothing. */
function withoutCachePoints(blocks: JsonValue | undefined): JsonValue[] {
  if (!Array.isArray(blocks)) return [];
  return blocks.filter((block) => !(isJsonObject(block) && "cachePoint" in block));
}

/**
 * What a reasoning block is bound to besides the model: the request's system prompt, tools and the
 * messages before it (`messageCount` of them), cache points left out. Equal prefixes give equal hashes:
 * the SHA-256 of the prefix's canonical JSON, `{"messages":[…],"system":[…],"tools":[…]}`.
 */
export function prefixHash(request: JsonObject, messageCount: number): string {
  let hasher = prefixHashers.get(request);
  if (hasher === undefined) {
    hasher = new PrefixHasher(request);
    prefixHashers.set(request, hasher);
  }
  return hasher.hash(messageCount);
}

/**
 * The prefix hashers of the requests being checked. A request is checked block by block, each
 * against the prefix before it: hashed afresh, a conversation of n turns costs n canonical
 * serializations of up to n messages per request, which made a 120-turn goal spend seconds here.
 */
const prefixHashers = new WeakMap<JsonObject, PrefixHasher>();

/**
 * Hashes the prefixes of one request (which must not change meanwhile): each message is serialized
 * once, and the hash of the messages so far is carried forward, copied for each prefix asked for.
 */
class PrefixHasher {
  private readonly messages: readonly JsonValue[];
  /** The keys after `messages`, in canonical (sorted) order. */
  private readonly tail: string;
  private readonly running = createHash("sha256").update('{"messages":[', "utf8");
  private hashed = 0;

  constructor(request: JsonObject) {
    this.messages = Array.isArray(request.messages) ? request.messages : [];
    const tools = isJsonObject(request.toolConfig) ? request.toolConfig.tools : undefined;
    this.tail = `],"system":${canonicalJson(withoutCachePoints(request.system))},"tools":${canonicalJson(withoutCachePoints(tools))}}`;
  }

  hash(messageCount: number): string {
    const count = Math.max(0, Math.min(messageCount, this.messages.length));
    // Asked for a shorter prefix than hashed so far: start over (requests are checked front to back).
    const running =
      count >= this.hashed ? this.running : createHash("sha256").update('{"messages":[', "utf8");
    for (let index = count >= this.hashed ? this.hashed : 0; index < count; index += 1) {
      running.update(`${index > 0 ? "," : ""}${canonicalJson(prefixMessage(this.messages[index]))}`, "utf8");
    }
    if (running === this.running) this.hashed = count;
    return running.copy().update(this.tail, "utf8").digest("base64url");
  }
}

/** A message as the prefix holds it: its role and its content without cache points. */
function prefixMessage(message: JsonValue | undefined): JsonValue {
  return isJsonObject(message)
    ? { role: message.role ?? null, content: withoutCachePoints(message.content) }
    : null;
}
