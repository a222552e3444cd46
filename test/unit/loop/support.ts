import { randomBytes, randomUUID } from "node:crypto";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Context } from "aws-lambda";
import {
  createGoalStoreAdapters,
  type GoalStoreAdapters,
} from "../../../lambdas/adapters/goal-store-adapters";
import { createGoalRecord } from "../../../lambdas/core/goal/create-goal";
import { goalIdFromBytes } from "../../../lambdas/core/goal/goal-ids";
import type { GoalRecord } from "../../../lambdas/core/goal/goal-record";
import { type GoalSpecInput, type Pattern, parseGoalSpec } from "../../../lambdas/core/goal/goal-spec";
import { act } from "../../../lambdas/core/loop/act";
import { continueAsNewStep } from "../../../lambdas/core/loop/continue-as-new";
import { loadGoal } from "../../../lambdas/core/loop/load-goal";
import type { LoopSettings } from "../../../lambdas/core/loop/loop-deps";
import { sequentialRunIds } from "../../../lambdas/core/loop/run-ids";
import type { NextStep, StepResult } from "../../../lambdas/core/loop/step-result";
import type { ModelRole } from "../../../lambdas/core/models/model-roles";
import { verifyAndReason } from "../../../lambdas/core/patterns/react/verify-and-reason";
import type { GoalStore } from "../../../lambdas/core/ports/goal-store";
import {
  type ContentBlock,
  type Message,
  type ModelClient,
  ModelFatalError,
  type ModelRequest,
  ModelRetryableError,
  type ModelTurn,
  type TokenUsage,
} from "../../../lambdas/core/ports/model-client";
import type { TaskCallback } from "../../../lambdas/core/ports/task-callback";
import type { ToolRunner } from "../../../lambdas/core/ports/tool-runner";
import { createBuiltInToolRunner } from "../../../lambdas/tools/built-in-tool-runner";
import { DEFAULT_TOOL_NAMES } from "../../../lambdas/tools/default-tools";
import {
  createFakeClockGoalTable,
  type DynamoBackend,
  documentClientFor,
  dynamoClientFor,
  type StartBackend,
  startDynalite,
} from "../../support/dynamo-backends";

export const MODEL_ID = "scripted:react-test";
/** The state machine ContinueAsNew is told it runs in (`$$.StateMachine.Id`). */
export const TEST_STATE_MACHINE_ARN = "arn:aws:states:us-east-1:111111111111:stateMachine:loop";
export const T0 = new Date("2026-03-01T09:00:00.000Z");

/** A clock that moves one second on every reading, so event times are ordered and reproducible. */
export function steppingClock(start: Date = T0): () => Date {
  let tick = 0;
  return () => new Date(start.getTime() + 1000 * tick++);
}

/** A scripted entry: a turn to serve, or an error to throw (by name, fatal or retryable). */
export type Scripted = ModelTurn | { readonly error: string; readonly retryable?: boolean };

const USAGE: TokenUsage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** The model says `text` and calls no tool. */
export function says(text: string): ModelTurn {
  return { modelId: MODEL_ID, stopReason: "end_turn", content: [{ text }], usage: USAGE };
}

let toolUseCounter = 0;

/** The model calls one tool (a fresh toolUseId each time). */
export function calls(name: string, input: Record<string, string>, text = `Calling ${name}.`): ModelTurn {
  toolUseCounter += 1;
  return {
    modelId: MODEL_ID,
    stopReason: "tool_use",
    content: [{ text }, { toolUse: { toolUseId: `tooluse-${toolUseCounter}`, name, input } }],
    usage: USAGE,
  };
}

/** The model writes a workspace file. */
export function writes(path: string, content: string): ModelTurn {
  return calls("workspace_write", { path, content });
}

/** The model call fails with `error` (a fatal model error unless `retryable`). */
export function failsWith(error: string, retryable = false): Scripted {
  return { error, retryable };
}

/**
 * A fake model in the manner of temporalio's samples: it serves canned turns per role in order,
 * records every request, and throws `FixtureExhausted` naming the role and the call count when a
 * role's queue runs out, so a test that calls the model more often than scripted fails loudly.
 */
export class ScriptedModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  private readonly served = new Map<ModelRole, number>();

  constructor(private readonly script: Partial<Record<ModelRole, readonly Scripted[]>>) {}

  async converse(request: ModelRequest): Promise<ModelTurn> {
    this.requests.push(request);
    const index = this.served.get(request.role) ?? 0;
    this.served.set(request.role, index + 1);
    const entry = this.script[request.role]?.[index];
    if (!entry) {
      throw new ModelFatalError(
        "FixtureExhausted",
        `no scripted ${request.role} turn left: this was ${request.role} call ${index + 1}, ${index} scripted`,
      );
    }
    if ("error" in entry) {
      const message = `scripted ${entry.error}`;
      throw entry.retryable
        ? new ModelRetryableError(entry.error, message)
        : new ModelFatalError(entry.error, message);
    }
    return { ...entry, modelId: request.modelId };
  }

  requestsFor(role: ModelRole): ModelRequest[] {
    return this.requests.filter((request) => request.role === role);
  }
}

/** Dynalite with a fresh goal table and the real DynamoDB adapters on it. */
export interface GoalTable {
  readonly adapters: GoalStoreAdapters;
  stop(): Promise<void>;
}

/** A goal table and where dynalite serves it (for clients built from the environment, as the handlers do). */
export interface ServedGoalTable extends GoalTable {
  readonly tableName: string;
  readonly endpoint: string;
  /** The document client the adapters use, for a test that reads or changes the table's raw items. */
  readonly documents: DynamoDBDocumentClient;
}

/** A fresh goal table on `start` (dynalite by default; the store's contract backends all fit). */
export async function startGoalTable(start: StartBackend = startDynalite): Promise<ServedGoalTable> {
  const backend: DynamoBackend = await start();
  const client: DynamoDBClient = dynamoClientFor(backend.endpoint);
  const tableName = `goals-${randomUUID()}`;
  await createFakeClockGoalTable(client, tableName);
  const documents = documentClientFor(client);
  const adapters = createGoalStoreAdapters({ client: documents, tableName });
  return {
    adapters,
    tableName,
    endpoint: backend.endpoint,
    documents,
    async stop() {
      client.destroy();
      await backend.stop();
    },
  };
}

/**
 * A goal table, and the environment a step handler reads pointing at it, as the local runtime sets
 * it: the DynamoDB endpoint through AWS_ENDPOINT_URL_DYNAMODB, local credentials, models that are
 * never called, a silent logger. Import the handler after this, so its module-scope clients see it.
 */
export async function startHandlerEnvironment(): Promise<ServedGoalTable> {
  const table = await startGoalTable();
  Object.assign(process.env, {
    GOAL_TABLE_NAME: table.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    HEAVY_MODEL_ID: "scripted:unused",
    FAST_MODEL_ID: "scripted:unused",
    POWERTOOLS_LOG_LEVEL: "SILENT",
    // The handlers publish goal metrics as EMF lines on stdout: none in unit tests.
    POWERTOOLS_METRICS_DISABLED: "true",
    // As the local runtime: notify records its messages in the outbox.
    NOTIFY_TOOL_DELIVERY: "outbox",
  });
  return table;
}

/** Enough of a Lambda context for middy and the Powertools logger. */
export function lambdaContext(functionName: string, memoryLimitInMB: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB,
    awsRequestId: "request-1",
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "stream",
    getRemainingTimeInMillis: () => 60_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** A spec whose one check is an artifact with content; override any field. */
/** A ReAct goal that must tell ops through `notify` (irreversible: it waits for an approval). */
export function notifyOpsSpec(overrides: Partial<GoalSpecInput> = {}): GoalSpecInput {
  return reactSpec({
    objective: "Tell ops the release is out",
    tools: ["notify"],
    successChecks: [
      {
        id: "told",
        description: "ops were notified",
        verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
      },
    ],
    ...overrides,
  });
}

export function reactSpec(overrides: Partial<GoalSpecInput> = {}): GoalSpecInput {
  return {
    objective: "Write a haiku about autumn to out/haiku.md",
    pattern: "react",
    successChecks: [
      {
        id: "haiku",
        description: "out/haiku.md holds a haiku that mentions autumn",
        verify: { kind: "artifact", path: "out/haiku.md", contains: "autumn" },
      },
    ],
    ...overrides,
  };
}

/** A react goal spec with one model_judge check: the haiku in out/haiku.md reads calm. */
export function calmHaikuJudgedSpec(): GoalSpecInput {
  return reactSpec({
    successChecks: [
      {
        id: "tone",
        description: "The haiku is calm",
        verify: { kind: "model_judge", rubric: "The haiku in out/haiku.md reads calm" },
      },
    ],
  });
}

/** A new running goal of `pattern` at run `r1` as the API creates it, with its first events; not stored. */
export function newGoal(
  spec: GoalSpecInput = reactSpec(),
  {
    goalId = goalIdFromBytes(randomBytes(16)),
    pattern = "react",
  }: { goalId?: string; pattern?: Pattern } = {},
) {
  return createGoalRecord({
    spec: parseGoalSpec(spec),
    goalId,
    tenantId: "tenant-1",
    runId: "r1",
    now: T0,
    pattern,
    patternReason: "requested",
  });
}

/** Stores a new running goal of `pattern` at run `r1`, as the API does. */
export async function createPatternGoal(
  table: Pick<GoalTable, "adapters">,
  spec: GoalSpecInput,
  pattern: Pattern,
): Promise<GoalRecord> {
  const { record, events } = newGoal(spec, { pattern });
  return (await table.adapters.goals.createGoal(record, events)).record;
}

/** Stores a new running ReAct goal at run `r1`, as the API does. */
export function createGoal(
  table: Pick<GoalTable, "adapters">,
  spec: GoalSpecInput = reactSpec(),
): Promise<GoalRecord> {
  return createPatternGoal(table, spec, "react");
}

export const SETTINGS: LoopSettings = {
  models: { heavyModelId: MODEL_ID, fastModelId: MODEL_ID },
  continueAsNewAfter: 50,
  defaultTools: DEFAULT_TOOL_NAMES,
};

/**
 * A loop's steps wired to the goal table, one model and one clock: what the handlers do in AWS.
 * LoadGoal, Act and the NextAction routing are shared; each pattern says which of its own steps
 * answers a `next` (`step`).
 */
export abstract class LoopDriver<S extends LoopSettings> {
  readonly tools: ToolRunner;
  readonly now = steppingClock();

  constructor(
    readonly table: GoalTable,
    /** A ScriptedModel in the unit tests; the bench's in-process baseline calls the local endpoint. */
    readonly model: ModelClient,
    readonly settings: S,
    http: { readonly allowedHosts: readonly string[]; readonly fetch?: typeof globalThis.fetch } = {
      allowedHosts: [],
    },
  ) {
    const { workspace, outbox } = table.adapters;
    this.tools = createBuiltInToolRunner({ workspace, outbox, ...http, now: this.now });
  }

  /** What the steps are handed; `goals` replaces the goal store (to inject a crash). */
  ports(goals: GoalStore = this.table.adapters.goals) {
    const { workspace, stepLog } = this.table.adapters;
    return {
      goals,
      workspace,
      stepLog,
      // Every counted step leaves its state, as the deployed verify steps do (forks start from it).
      history: stepLog,
      model: this.model,
      tools: this.tools,
      now: this.now,
      ids: sequentialRunIds,
    };
  }

  load(goalId: string, runId = "r1"): Promise<StepResult> {
    return loadGoal(this.ports(), { goalId, runId });
  }

  act(position: StepResult): Promise<StepResult> {
    return act(this.ports(), this.settings, position);
  }

  /**
   * The state the machine runs for `position.next`, or undefined when the run ends (or waits)
   * there. `goals` replaces the goal store of the pattern's own steps (to inject a crash).
   */
  abstract step(position: StepResult, goals?: GoalStore): Promise<StepResult> | undefined;

  /**
   * Runs from `start` the way the state machine routes `$.next` until an answer ends the run or
   * waits, or (with `stopAt`) until the first answer naming that step. Returns every answer.
   */
  async continue(
    start: StepResult,
    options: { readonly stopAt?: NextStep; readonly maxSteps?: number } = {},
  ): Promise<StepResult[]> {
    const { stopAt, maxSteps = 100 } = options;
    const answers: StepResult[] = [start];
    let answer = start;
    for (let transitions = 0; transitions < maxSteps; transitions += 1) {
      if (answer.next === stopAt) return answers;
      const next = this.step(answer);
      if (!next) return answers;
      answer = await next;
      answers.push(answer);
    }
    throw new Error(
      `the run did not end within ${maxSteps} steps: ${answers.map((a) => a.next).join(" → ")}`,
    );
  }

  /** One run as the state machine runs it: LoadGoal, then `continue`. */
  async run(goalId: string, runId = "r1", maxSteps = 100): Promise<StepResult[]> {
    return this.continue(await this.load(goalId, runId), { maxSteps });
  }

  async goal(goalId: string): Promise<GoalRecord> {
    const versioned = await this.table.adapters.goals.getGoal(goalId);
    if (!versioned) throw new Error(`goal ${goalId} vanished`);
    return versioned.record;
  }

  async events(goalId: string) {
    return (await this.table.adapters.goals.listEvents(goalId, { limit: 1000 })).items;
  }

  async eventsOf(goalId: string, type: string) {
    return (await this.events(goalId)).filter((event) => event.type === type);
  }
}

/** The ReAct steps: NextAction routes verify → VerifyAndReason, act → Act → VerifyAndReason. */
export class ReactLoopDriver extends LoopDriver<LoopSettings> {
  constructor(
    table: GoalTable,
    model: ModelClient,
    settings: LoopSettings = SETTINGS,
    http?: { readonly allowedHosts: readonly string[]; readonly fetch?: typeof globalThis.fetch },
  ) {
    super(table, model, settings, http);
  }

  verifyAndReason(position: StepResult): Promise<StepResult> {
    return verifyAndReason(this.ports(), this.settings, position);
  }

  continueAsNew(position: StepResult) {
    return continueAsNewStep(this.ports(), { ...position, stateMachineArn: TEST_STATE_MACHINE_ARN });
  }

  step(position: StepResult): Promise<StepResult> | undefined {
    if (position.next === "verify") return this.verifyAndReason(position);
    if (position.next === "act") return this.act(position);
    return undefined;
  }
}

/** The step crashed after its model call was checkpointed, before it committed anything. */
export class InjectedCrash extends Error {
  override readonly name = "InjectedCrash";
}

/**
 * `goals`, except that the first new checkpoint of `role` is stored and then the step crashes:
 * the model was paid, the step never returned (as when a Lambda dies), and Step Functions retries it.
 */
export function crashAfterCheckpoint(goals: GoalStore, role: ModelRole): GoalStore {
  let crashed = false;
  return new Proxy(goals, {
    get(target, property, receiver) {
      if (property !== "putCheckpoint") return Reflect.get(target, property, receiver);
      return async (...args: Parameters<GoalStore["putCheckpoint"]>) => {
        const stored = await target.putCheckpoint(...args);
        if (!crashed && args[0].key.role === role) {
          crashed = true;
          throw new InjectedCrash(`crashed after the ${role} checkpoint`);
        }
        return stored;
      };
    },
  });
}

/**
 * `goals`, except that its `nth` commit (counted from 1) fails as a dying sandbox would: nothing of
 * that commit is stored, the step never returns, and Step Functions retries it.
 */
export function diesAtCommit(goals: GoalStore, nth: number): GoalStore {
  let commits = 0;
  return new Proxy(goals, {
    get: (target, property, receiver) =>
      property !== "commit"
        ? Reflect.get(target, property, receiver)
        : (...args: Parameters<GoalStore["commit"]>) => {
            commits += 1;
            return commits === nth
              ? Promise.reject(new InjectedCrash(`died at commit ${nth}`))
              : target.commit(...args);
          },
  });
}

/**
 * Checks what Converse requires of a conversation: it starts with a user message, roles alternate,
 * and every assistant toolUse is answered by a toolResult with its id in the next user message.
 * Returns the problems found (empty when valid), so a failing test shows all of them.
 */
export function conversationProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  if (messages[0]?.role !== "user") problems.push("the first message is not from the user");
  messages.forEach((message, index) => {
    const previous = messages[index - 1];
    if (previous && previous.role === message.role)
      problems.push(`messages ${index - 1} and ${index} are both ${message.role}`);
    if (message.role !== "assistant") return;
    const asked = message.content.flatMap((block: ContentBlock) =>
      "toolUse" in block ? [block.toolUse.toolUseId] : [],
    );
    const answered = new Set(
      (messages[index + 1]?.content ?? []).flatMap((block) =>
        "toolResult" in block ? [block.toolResult.toolUseId] : [],
      ),
    );
    for (const id of asked)
      if (!answered.has(id)) problems.push(`toolUse ${id} in message ${index} has no toolResult`);
  });
  return problems;
}

/** The text blocks of a request's last message (the current state). */
export function lastUserText(request: ModelRequest | undefined): string {
  const last = request?.messages.at(-1);
  return (last?.content ?? []).flatMap((block) => ("text" in block ? [block.text] : [])).join("\n");
}

/** A task callback that answers every token and remembers what each was told (Step Functions' side). */
export class AnsweredTokens implements TaskCallback {
  readonly answers = new Map<string, StepResult>();
  async succeed(token: string, output: StepResult): Promise<void> {
    this.answers.set(token, output);
  }
}
