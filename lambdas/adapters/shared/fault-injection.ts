import { canonicalJson } from "../../core/goal/canonical-json";
import type { JsonValue } from "../../core/goal/goal-change";
import { parseOrThrow } from "../../core/goal/validation";
import { ModelRoleSchema } from "../../core/models/model-roles";
import type { GoalStore, ModelCheckpoint } from "../../core/ports/goal-store";
import type { ModelClient, ModelRequest } from "../../core/ports/model-client";
import type { Outbox, OutboxDeliveryOutcome, OutboxMessage } from "../../core/ports/outbox";
import type { Workspace } from "../../core/ports/workspace";
import * as z from "../../core/zod";

/**
 * Chaos-testing hook, in the manner of AWS FIS's Lambda fault injection: inert unless this variable
 * is set, and never set by the stack. The end-to-end tests set it to prove a crashed step is retried
 * without paying for its model call again.
 */
export const FAULT_INJECTION_ENV = "GOAL_LOOPS_FAULT_INJECTION";

/**
 * The schema of the variable's value, built when the variable is set (only chaos tests set it): the
 * few dozen zod schemas it takes are not built at every function's cold start for nothing.
 */
function faultSpecSchema() {
  /**
   * `crash-after-checkpoint:<role>:<call>`: the process exits right after the checkpoint of that
   * role's call number (the goal's n-th call of the role, counted from 0) was stored for the first
   * time — the model was paid, the step has not returned, as when a sandbox runs out of memory.
   */
  const CheckpointFaultSchema = z.pipe(
    z.pipe(
      z.pipe(
        z.string(),
        z.transform((value) => value.split(":")),
      ),
      z.tuple([
        z.literal("crash-after-checkpoint"),
        ModelRoleSchema,
        z.pipe(z.string().check(z.regex(/^\d+$/, "must be a whole number")), z.transform(Number)),
      ]),
    ),
    z.transform(([kind, role, call]) => ({ kind, role, call })),
  );

  /**
   * `crash-after-notify-sent`: the process exits right after a `notify` message was sent and its
   * receipt recorded for the first time — delivered, but the step has not checkpointed its result.
   */
  const NotifyFaultSchema = z.pipe(
    z.literal("crash-after-notify-sent"),
    z.transform((kind) => ({ kind })),
  );

  /**
   * `drop-reasoning`: the model client sends every request without its reasoning blocks, as a loop
   * that rebuilds its history would: the thinking round trip switched off, so a test shows the
   * strict local Bedrock endpoint (and Bedrock) refusing the second call of a tool-use cycle.
   */
  const ReasoningFaultSchema = z.pipe(
    z.literal("drop-reasoning"),
    z.transform((kind) => ({ kind })),
  );

  /**
   * `crash-after-compensation:<index>`: the process exits right after a saga's undo of its call number
   * `index` (0 for the first call it undoes) changed the workspace — a file restored or deleted — and
   * before the saga recorded it, as when a sandbox dies mid-saga.
   */
  const CompensationFaultSchema = z.pipe(
    z.pipe(
      z.pipe(
        z.string(),
        z.transform((value) => value.split(":")),
      ),
      z.tuple([
        z.literal("crash-after-compensation"),
        z.pipe(z.string().check(z.regex(/^\d+$/, "must be a whole number")), z.transform(Number)),
      ]),
    ),
    z.transform(([kind, index]) => ({ kind, index })),
  );

  return z.union([NotifyFaultSchema, ReasoningFaultSchema, CheckpointFaultSchema, CompensationFaultSchema]);
}

export type FaultSpec = z.output<ReturnType<typeof faultSpecSchema>>;

/**
 * The fault the environment asks for, or undefined when the variable is unset or empty. A value that
 * does not parse throws at init, naming the variable: a chaos test that silently injects nothing
 * would pass for the wrong reason.
 */
export function faultFromEnvironment(env: NodeJS.ProcessEnv = process.env): FaultSpec | undefined {
  const value = env[FAULT_INJECTION_ENV];
  if (value === undefined || value.trim() === "") return undefined;
  return parseOrThrow(
    faultSpecSchema(),
    value.trim(),
    `environment variable ${FAULT_INJECTION_ENV} ('${value}', expected crash-after-checkpoint:<role>:<call>, crash-after-notify-sent, crash-after-compensation:<index> or drop-reasoning)`,
  );
}

/** How the process dies; a test passes its own. */
export type Exit = (code: number) => never;

const processExit: Exit = (code) => process.exit(code);

/**
 * `goals` with `fault` injected: a put that stores a NEW checkpoint of the fault's role and call
 * ends the process with exit code 1 (Lambda reports `Runtime.ExitError`; the local runtime, whose
 * functions run in worker threads, reports a worker's exit the same way). A put that lost a race
 * (the stored checkpoint is another attempt's) does not crash, and a retried step finds the
 * checkpoint with findCheckpoint and never puts it again, so the fault fires once per goal.
 *
 * A Proxy rather than a delegating class: every other operation passes through untouched, also
 * ones the GoalStore port gains later.
 */
export function withFaultInjection<T extends GoalStore>(
  goals: T,
  fault: FaultSpec | undefined,
  exit: Exit = processExit,
): T {
  if (fault?.kind !== "crash-after-checkpoint") return goals;
  const putCheckpoint = async (checkpoint: ModelCheckpoint, schema?: number): Promise<ModelCheckpoint> => {
    const stored = await goals.putCheckpoint(checkpoint, schema);
    const targeted = checkpoint.key.role === fault.role && checkpoint.call === fault.call;
    if (targeted && sameCheckpoint(stored, checkpoint)) {
      console.error(
        `${FAULT_INJECTION_ENV}: crashing after the checkpoint of goal ${checkpoint.key.goalId} role ${fault.role} call ${fault.call}`,
      );
      exit(1);
    }
    return stored;
  };
  return new Proxy(goals, {
    get(target, property) {
      if (property === "putCheckpoint") return putCheckpoint;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Whether the store kept this very checkpoint (not an earlier attempt's answer to the same key). */
function sameCheckpoint(stored: ModelCheckpoint, put: ModelCheckpoint): boolean {
  // Through JSON first: the store drops undefined fields the put may still carry.
  const json = ({ createdAt, turn }: ModelCheckpoint) =>
    canonicalJson(JSON.parse(JSON.stringify({ createdAt, turn })) as JsonValue);
  return json(stored) === json(put);
}

/**
 * `outbox` with a `crash-after-notify-sent` fault injected: a recordDelivery that stored THIS
 * attempt's `sent` outcome ends the process. A retried step finds the message sent and never
 * records again, so the fault fires once per notify call.
 */
export function withNotifyFaultInjection<T extends Outbox>(
  outbox: T,
  fault: FaultSpec | undefined,
  exit: Exit = processExit,
): T {
  if (fault?.kind !== "crash-after-notify-sent") return outbox;
  const recordDelivery = async (
    goalId: string,
    messageId: string,
    outcome: OutboxDeliveryOutcome,
  ): Promise<OutboxMessage> => {
    const stored = await outbox.recordDelivery(goalId, messageId, outcome);
    if (
      outcome.state === "sent" &&
      stored.delivery?.state === "sent" &&
      stored.delivery.sentAt === outcome.sentAt
    ) {
      console.error(`${FAULT_INJECTION_ENV}: crashing after notify ${messageId} of goal ${goalId} was sent`);
      exit(1);
    }
    return stored;
  };
  return new Proxy(outbox, {
    get(target, property) {
      if (property === "recordDelivery") return recordDelivery;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * `model` with a `drop-reasoning` fault injected: every request leaves out the reasoning blocks of
 * its assistant turns (a turn left empty keeps a placeholder text). Nothing else changes.
 */
export function withReasoningFaultInjection<T extends ModelClient>(
  model: T,
  fault: FaultSpec | undefined,
): T {
  if (fault?.kind !== "drop-reasoning") return model;
  const converse = (request: ModelRequest) => {
    const messages = request.messages.map((message) => {
      const content = message.content.filter((block) => !("reasoningContent" in block));
      return { ...message, content: content.length > 0 ? content : [{ text: "(no output)" }] };
    });
    return model.converse({ ...request, messages });
  };
  return new Proxy(model, {
    get(target, property) {
      if (property === "converse") return converse;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A saga's undo writes as `compensate:<sagaId>:<index>` (loop/revisions/saga.ts `sagaWriterId`). */
const SAGA_WRITER = /^compensate:.+:(\d+)$/;

/**
 * `workspace` with a `crash-after-compensation:<index>` fault injected: a write or deletion by a
 * saga's undo of call `index` that changed the file ends the process. A resumed saga finds that
 * undo done (the file is its own writer's, or gone) and changes nothing, so the fault fires once.
 */
export function withCompensationFaultInjection<T extends Workspace>(
  workspace: T,
  fault: FaultSpec | undefined,
  exit: Exit = processExit,
): T {
  if (fault?.kind !== "crash-after-compensation") return workspace;
  const crashIf = (writer: string, changed: boolean) => {
    const index = SAGA_WRITER.exec(writer)?.[1];
    if (changed && index !== undefined && Number(index) === fault.index) {
      console.error(`${FAULT_INJECTION_ENV}: crashing after compensation ${index} changed the workspace`);
      exit(1);
    }
  };
  const overrides: Partial<Workspace> = {
    async writeFile(input) {
      const written = await workspace.writeFile(input);
      crashIf(input.writtenBy.toolUseId, written.changed);
      return written;
    },
    async deleteFile(input) {
      const deleted = await workspace.deleteFile(input);
      crashIf(input.writtenBy.toolUseId, deleted.deleted);
      return deleted;
    },
  };
  return new Proxy(workspace, {
    get(target, property) {
      const override = typeof property === "string" ? overrides[property as keyof Workspace] : undefined;
      if (override !== undefined) return override;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
