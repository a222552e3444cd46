import { GoalLoopsError } from "../goal/errors";
import type { Clock } from "../ports/clock";
import type { CheckpointKey, CheckpointLookup, GoalStore, ModelCheckpoint } from "../ports/goal-store";
import {
  MODEL_THROTTLED,
  type ModelClient,
  ModelFatalError,
  type ModelRequest,
  ModelRetryableError,
  type TurnConversation,
} from "../ports/model-client";
import {
  type CapacityContext,
  type CapacityGovernor,
  type EarlyTenantLimits,
  FIRST_ASK,
  isCapacityWait,
} from "./capacity/capacity-governor";
import { reservedTokens } from "./capacity/model-quota";
import { costOf, priceOf } from "./model-prices";
import { type ModelRole, ModelRoleSchema } from "./model-roles";

const CALL_CONTEXT = /^role=([a-z]+) call=(\d+): /;

/** What is left of the goal's `maxCostUsd` for the next model call. */
export interface CallBudget {
  readonly remainingUsd: number;
}

/** The stable name of CostLimitReachedError. */
export const COST_LIMIT_REACHED = "CostLimitReached";

/** By name, not instanceof: the error may come from another copy of this module (a bundle). */
export function isCostLimitReached(error: unknown): error is CostLimitReachedError {
  return error instanceof Error && error.name === COST_LIMIT_REACHED;
}

/**
 * A model call the goal's remaining budget cannot pay for at its worst case: it is not made (DESIGN
 * §3). The step answers a limit decision instead (`stopAtCostLimit`), so a human raises the limit
 * or ends the goal before the money is spent.
 */
export class CostLimitReachedError extends GoalLoopsError {
  override readonly name = COST_LIMIT_REACHED;
  constructor(
    readonly role: ModelRole,
    readonly neededUsd: number,
    readonly remainingUsd: number,
  ) {
    super(
      `The next ${role} call may cost up to $${neededUsd.toFixed(4)}; $${remainingUsd.toFixed(4)} of the goal's budget is left`,
    );
  }
}

/** The output a request without `maxTokens` is assumed to be able to take (every step sets one). */
const UNBOUNDED_OUTPUT_TOKENS = 8192;

/**
 * The most a request can cost: its prompt, counted as one token per 3 UTF-8 bytes (more than a
 * cl100k-like tokenizer counts for prose and JSON, so the estimate errs high without loading one),
 * plus `maxTokens` of output, at the model's price.
 */
export function worstCaseCostUsd(request: ModelRequest): number {
  const promptBytes = Buffer.byteLength(
    JSON.stringify([request.system, request.messages, request.tools ?? []]),
  );
  return costOf(request.modelId, {
    inputTokens: Math.ceil(promptBytes / 3),
    outputTokens: request.maxTokens ?? UNBOUNDED_OUTPUT_TOKENS,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  });
}

/**
 * A model error as a step throws it: the same `name` (Step Functions Retry/Catch match on it), the
 * same retryability, and the message prefixed `role=<role> call=<n>: ` so RecordFailure, which only
 * sees the name and the message, can say which call failed.
 */
export function withModelCallContext(error: unknown, role: ModelRole, call: number): GoalLoopsError {
  const prefix = `role=${role} call=${call}: `;
  const name = error instanceof Error ? error.name : "UnknownModelError";
  const message = `${prefix}${error instanceof Error ? error.message : String(error)}`;
  const retryable = error instanceof GoalLoopsError && error.retryable;
  return retryable
    ? new ModelRetryableError(name, message, { cause: error })
    : new ModelFatalError(name, message, { cause: error });
}

/** Bedrock's ThrottlingException, as the model client throws it (by name: it may come from a bundle). */
function isThrottling(error: unknown): boolean {
  return error instanceof Error && error.name === MODEL_THROTTLED;
}

/** The role and call number an error message names (see `withModelCallContext`), if any. */
export function parseModelCallContext(message: string): { role: ModelRole; call: number } | undefined {
  const match = CALL_CONTEXT.exec(message);
  const role = ModelRoleSchema.safeParse(match?.[1]);
  if (!match || !role.success) return undefined;
  return { role: role.data, call: Number(match[2]) };
}

export interface CheckpointedCallPorts {
  readonly goals: GoalStore;
  readonly model: ModelClient;
  readonly now: Clock;
  /**
   * Paces the calls within the models' quotas and turns Bedrock's throttles into waits. Absent
   * (unit tests of one step): calls go at once and a throttle is an error like any other.
   */
  readonly capacity?: CapacityGovernor;
}

/** The options of one checkpointed call (see `checkpointedCall`). */
export interface CallOptions {
  readonly early?: EarlyLookup;
  readonly budget?: CallBudget;
  readonly conversation?: TurnConversation;
  /** The goal's priority and its wait so far (`capacityContextOf(record)`); default FIRST_ASK. */
  readonly capacity?: CapacityContext;
  /** The tenant's limits, read beside the step's other reads (`readTenantLimitsEarly`). */
  readonly tenantLimits?: EarlyTenantLimits;
  /**
   * The record schema the goal is stored in (its record's `schema`; absent: this code's): a new
   * checkpoint is written in it, so the version the goal runs on reads it (GoalStore.putCheckpoint).
   * Every step that holds the goal's record passes it.
   */
  readonly recordSchema?: number;
  /**
   * A write the step needs stored before it counts the call (VerifyAndReason's step state), sent
   * together with the checkpoint's put: one round trip for both. Made at once when the call is
   * checkpointed already; not made when no checkpoint is written (the call failed or was refused).
   */
  readonly alongside?: () => Promise<void>;
}

/**
 * One model call that is paid for once: the checkpoint under `key` is reused when an earlier attempt
 * made the call; otherwise `call` is the role's next number for the goal, the request is built for
 * it, sent, and its turn checkpointed (the first writer wins, so a racing attempt answers the same).
 * Counting the usage is the caller's business: it must do so once per checkpoint.
 *
 * `early` is a lookup the caller started beside its other reads (`lookUpEarly`): used when it was
 * for this very key and did not fail; the lookup is made here otherwise. With a `budget`, a call its
 * worst case would take past the goal's `maxCostUsd` is not made (CostLimitReachedError); a
 * checkpointed one is paid already and always reused. `conversation` is stored with a new turn,
 * for a role whose later prompts show it again (see TurnConversation).
 */
export async function checkpointedCall(
  ports: CheckpointedCallPorts,
  key: CheckpointKey,
  buildRequest: (call: number) => ModelRequest,
  options: CallOptions = {},
): Promise<ModelCheckpoint> {
  const { early } = options;
  const lookUp = () => ports.goals.findCheckpoint(key);
  const found = await (early && sameKey(early.key, key) ? early.lookup.catch(lookUp) : lookUp());
  if (found.checkpoint === undefined)
    return callAndCheckpoint(ports, key, found.calls, buildRequest, options);
  await options.alongside?.();
  return found.checkpoint;
}

/** A `findCheckpoint` started before the step knew it would call, with the key it was for. */
export interface EarlyLookup {
  readonly key: CheckpointKey;
  readonly lookup: Promise<CheckpointLookup>;
}

/**
 * Starts `findCheckpoint(key)` now, for a step that knows the key before its other reads finish and
 * hands the lookup to `checkpointedCall` once it decides to call. A lookup the step never uses (it
 * answered without calling) is dropped, its failure included. The earlier lookup widens the window
 * in which a duplicate invocation of the step (a retry while the first still runs) also makes the
 * call: the first checkpoint still wins and is the one counted, the other is paid and not used.
 */
export function lookUpEarly(goals: Pick<GoalStore, "findCheckpoint">, key: CheckpointKey): EarlyLookup {
  // Through a promise, so a lookup that throws at once fails the same way as one that rejects.
  const lookup = Promise.resolve(key).then((started) => goals.findCheckpoint(started));
  lookup.catch(() => undefined);
  return { key, lookup };
}

function sameKey(a: CheckpointKey, b: CheckpointKey): boolean {
  return (
    a.goalId === b.goalId &&
    a.runId === b.runId &&
    a.iteration === b.iteration &&
    a.role === b.role &&
    a.ordinal === b.ordinal
  );
}

/**
 * The second half of `checkpointedCall`, for a step that decides between the lookup and the call
 * (Attempt: a limit stops a call not made yet): makes call number `call` and checkpoints its turn.
 */
export async function callAndCheckpoint(
  ports: CheckpointedCallPorts,
  key: CheckpointKey,
  call: number,
  buildRequest: (call: number) => ModelRequest,
  options: Omit<CallOptions, "early"> = {},
): Promise<ModelCheckpoint> {
  const { budget, conversation } = options;
  const request = buildRequest(call);
  // An unpriced model would fail after the call was paid for; refuse before instead.
  priceOf(request.modelId);
  if (budget) {
    const neededUsd = worstCaseCostUsd(request);
    if (neededUsd > budget.remainingUsd)
      throw new CostLimitReachedError(key.role, neededUsd, budget.remainingUsd);
  }
  const context = options.capacity ?? FIRST_ASK;
  const tokens = reservedTokens(request);
  let turn: Awaited<ReturnType<ModelClient["converse"]>>;
  try {
    const grant = await ports.capacity?.acquire(request.modelId, tokens, context, options.tenantLimits);
    try {
      turn = await ports.model.converse(request);
    } catch (error) {
      // Bedrock's rate limit is capacity, not failure: the governor slows down and the goal waits.
      if (ports.capacity !== undefined && isThrottling(error)) {
        await ports.capacity.throttled(request.modelId, tokens, context);
      }
      throw error;
    }
    await ports.capacity?.settle(grant, turn.usage);
  } catch (error) {
    if (isCapacityWait(error)) throw error.forRole(key.role);
    throw withModelCallContext(error, key.role, call);
  }
  const costUsd = costOf(turn.modelId, turn.usage);
  // The tenant's day counts every call paid for, a racing duplicate's included (it was paid too).
  await ports.capacity?.spent(context, costUsd);
  const [stored] = await Promise.all([
    ports.goals.putCheckpoint(
      {
        key,
        call,
        turn,
        ...(conversation ? { conversation } : {}),
        costUsd,
        createdAt: ports.now().toISOString(),
      },
      options.recordSchema,
    ),
    options.alongside?.(),
  ]);
  return stored;
}
