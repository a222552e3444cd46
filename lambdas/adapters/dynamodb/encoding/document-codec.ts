import { deflateRawSync, inflateRawSync, constants as zlibConstants } from "node:zlib";
import { CorruptStoreItemError } from "../../shared/store-errors";

/**
 * How items of record schema 3 and later hold a document (a goal's record and outbox, a step record,
 * a checkpoint, a step state, an event): its JSON, deflated (raw DEFLATE, RFC 1951) against a preset
 * dictionary, as one Binary attribute. DynamoDB bills every write by the item's size, counting a
 * Binary value by its raw bytes and every attribute name in full (developer guide, "DynamoDB item
 * sizes and formats", CapacityUnitCalculations.html), and recommends compressing large attribute
 * values into a Binary attribute, at the price of not filtering on them (developer guide, "Best
 * practices for storing large items and attributes", bp-use-s3-too.html). Nothing filters on these
 * documents: keys, indexes, status and version stay in the clear.
 *
 * Why a dictionary: these documents are small (a few KB) and spell the same field names every time;
 * a compressor starts each one knowing nothing, so the names cost bytes in every item. Deflated
 * against a dictionary of them (and of the text this code writes into them), a goal item is a fifth
 * smaller than brotli without one (measured on the bench's long goal), and deflate takes a tenth of
 * a millisecond where brotli at a quality that comes close takes several.
 *
 * DOCUMENT_DICTIONARY is part of the stored format: items written with it are inflated with the same
 * bytes, forever. Never edit it: a different dictionary is a new record schema, with its own constant
 * beside this one (test/unit/adapters/document-codec.test.ts pins its hash).
 */

/**
 * Field names of the stored shapes and the values they repeat most (roles, statuses, event types),
 * least frequent first: DEFLATE reaches the end of a dictionary with the shortest distances.
 * Generic to every goal: nothing of one goal's content is in it.
 */
const DICTIONARY_WORDS = [
  // Event types and values, rarely in one document.
  "approval.decided approval.requested attempt.started capacity.waiting decision.needed gate.decided",
  "goal.completed goal.paused goal.resumed goal.terminated goal.waiting goal.created run.continued",
  "run.started step.started plan.created plan.step.observed evidence.recorded limit.reached",
  "revision.applied revision.queued lesson.recorded subgoal.started subgoal.ended tool.error",
  "irreversible reversible workspace_read workspace_list http_request notify spawn_subgoal",
  "end_turn max_tokens approved rejected pending completed terminated cancelled paused failed",
  "waiting running react plan_execute reflexion artifact tool_result model_judge api",
  // Field names, least frequent first.
  "detail message requestedPattern previousRunIterations checkId strength revisionsQueued deleted",
  "previous json observations artifacts tool resultJson format calls workspace checkpoint ordinal",
  "call thinking toolUse input conversation prompt toolResults changed toolCalls fingerprint",
  "reasons busy unsatisfiedChecks modelClaimedDone modelClaimedChecks pendingEvents turn",
  "reasoningContent reasoningText signature redactedContent reasoningSummary previousRunId size",
  "claimedDone openBlockers partialChecks reasoningByRole loop phase spec scope id description",
  "verify contains constraints limits maxSteps maxCostUsd maxNoProgressCycles maxReplans",
  "maxAttempts approval requireFor preAuthorized channels models default runIteration activeTask",
  "waitingFor resumeCondition steps progressNotes usageByRole inbox revisionLog contextNotes",
  "pendingCorrections lastCycle replans attempts runsOn stateMachineVersionArn lastEventSeq effort",
  "tenantId revision patternReason objective successChecks evidence kind key name record",
  "updatedAt createdAt schema role satisfiedChecks noProgressCycles usage summary toolUseId step",
  "pattern text status version stopReason sha256 content summarize seq type reason modelCalls",
  "path modelId costUsd iteration inputTokens outputTokens cacheReadTokens cacheWriteTokens",
  "goalId at runId",
];

/**
 * Text this code writes into the documents itself (the ReAct state prompt a step record and its
 * checkpoint keep, progress notes, tool results), as it reads inside a JSON string. A later change
 * of that text leaves the dictionary as it is: the text is only compressed less.
 */
const DICTIONARY_PHRASES = [
  "new success result of ",
  "new error result of ",
  " progress: new artifact ",
  " - step ",
  "Recent progress:\n- #",
  "Current state (run ",
  ", iteration ",
  "):\n- Satisfied checks: ",
  "\n- Unsatisfied checks: ",
  "\n- Steps used: ",
  " left)\n- Cost so far: $",
  "\n- Cycles without progress: ",
  "\nTake the next step.",
];

/** JSON as every document spells it, around the field names. */
const DICTIONARY_JSON = [
  '"status":"success","content":[{"json":{',
  '{"toolUse":{"toolUseId":"tooluse_',
  '"},{"text":"',
  '{"reasoningContent":{"reasoningText":{"text":"',
  '"stopReason":"tool_use","content":[',
  '"type":"model.usage","at":"',
  '"type":"model.turn","at":"',
  '"type":"tool.called","at":"',
  '"type":"progress","at":"',
  '"role":"reason","modelId":"',
];

export const DOCUMENT_DICTIONARY: Buffer = Buffer.from(
  [
    // As the phrases read inside a JSON string: a line break is `\n` there.
    ...DICTIONARY_PHRASES.map((phrase) => JSON.stringify(phrase).slice(1, -1)),
    ...DICTIONARY_JSON,
    ...DICTIONARY_WORDS.join(" ")
      .split(" ")
      .map((word) => `"${word}":`),
  ].join(""),
  "utf8",
);

const OPTIONS = { level: zlibConstants.Z_BEST_COMPRESSION, dictionary: DOCUMENT_DICTIONARY };

/** A document as stored in an item of record schema 3 and later. */
export function encodeDocument(value: unknown): Uint8Array {
  return deflateRawSync(Buffer.from(JSON.stringify(value), "utf8"), OPTIONS);
}

/** What `encodeDocument` wrote, parsed back; CorruptStoreItemError naming `what` when it is not. */
export function decodeDocument(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(inflateRawSync(bytes, OPTIONS).toString("utf8"));
  } catch (error) {
    throw new CorruptStoreItemError(`Stored ${what} is not an encoded document`, { cause: error });
  }
}
