import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ModelRole } from "../../../lambdas/core/models/model-roles";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { isJsonObject } from "../shared/json";
import {
  BEDROCK_ERROR_STATUS,
  type BedrockErrorName,
  type ErrorTurn,
  fixtureFileOf,
  type RecordedFrom,
  type ResponseTurn,
  ResponseTurnSchema,
} from "./model-fixtures";

/** One call of a recorded goal: the errors its attempts got, then its answer. */
interface RecordedCall {
  readonly errors: ErrorTurn[];
  response?: ResponseTurn;
}

interface RecordedGoal {
  readonly file: string;
  /** The model id the goal called (the first call's): what `scripted:<name>` replays. */
  readonly model: string;
  readonly roles: Map<ModelRole, Map<number, RecordedCall>>;
}

export interface CallOfGoal {
  readonly goalId: string;
  readonly role: ModelRole;
  readonly call: number;
}

const isBedrockError = (name: string): name is BedrockErrorName => name in BEDROCK_ERROR_STATUS;

/**
 * A Converse answer (wire JSON) as a fixture turn: the first reasoning block with its real
 * signature or redacted bytes, the text, the tool calls with their ids, stop reason and usage.
 * Nothing of the request goes in, so no credential or header can.
 */
export function turnOfAnswer(response: JsonObject): ResponseTurn {
  const output = isJsonObject(response.output) ? response.output : {};
  const message = isJsonObject(output.message) ? output.message : {};
  const content: JsonValue[] = Array.isArray(message.content) ? message.content : [];
  const texts: string[] = [];
  const toolUses: { name: string; input: JsonValue; toolUseId: string }[] = [];
  let reasoning: Pick<ResponseTurn, "reasoning" | "signature" | "redacted" | "redactedContent"> = {};
  for (const block of content) {
    if (!isJsonObject(block)) continue;
    if (typeof block.text === "string") texts.push(block.text);
    const toolUse = block.toolUse;
    if (isJsonObject(toolUse) && typeof toolUse.name === "string" && typeof toolUse.toolUseId === "string") {
      toolUses.push({ name: toolUse.name, input: toolUse.input ?? {}, toolUseId: toolUse.toolUseId });
    }
    const thought = block.reasoningContent;
    // A turn keeps one reasoning block, the first, as the fixture format has one.
    if (!isJsonObject(thought) || Object.keys(reasoning).length > 0) continue;
    if (typeof thought.redactedContent === "string") {
      reasoning = { redacted: true, redactedContent: thought.redactedContent };
    } else if (isJsonObject(thought.reasoningText) && typeof thought.reasoningText.text === "string") {
      const { text, signature } = thought.reasoningText;
      reasoning = {
        reasoning: text,
        ...(typeof signature === "string" && signature !== "" ? { signature } : {}),
      };
    }
  }
  const usage = isJsonObject(response.usage) ? response.usage : {};
  const count = (key: string) => (typeof usage[key] === "number" ? { [key]: usage[key] } : {});
  const [firstTool] = toolUses;
  const turn = {
    ...(texts.length > 0 || firstTool === undefined ? { text: texts.join("") } : {}),
    ...(firstTool === undefined ? {} : { toolUse: toolUses.length === 1 ? firstTool : toolUses }),
    ...reasoning,
    ...(typeof response.stopReason === "string" ? { stopReason: response.stopReason } : {}),
    usage: {
      ...count("inputTokens"),
      ...count("outputTokens"),
      ...count("cacheReadInputTokens"),
      ...count("cacheWriteInputTokens"),
    },
  };
  // A shape the fixture format cannot hold (an unknown stop reason, empty reasoning without a
  // signature) is a bug to see at once, not a file that fails on replay.
  return ResponseTurnSchema.parse(
    turn.reasoning === "" && turn.signature === undefined ? { ...turn, reasoning: undefined } : turn,
  );
}

/**
 * Writes what the recorder's upstream answered into fixture files (DESIGN §6 "Model fixtures"):
 * per role, in call order, errors before the answer they preceded. One goal per file: the first
 * goal recorded is `<name>.json`, each later one `<name>-2.json`, `<name>-3.json`, … in the order
 * their first calls came. A file is rewritten whole (to a temporary name, then renamed) after every
 * answer, so a stop at any moment leaves a readable recording of every call so far.
 */
export class FixtureRecorder {
  private readonly goals = new Map<string, RecordedGoal>();

  constructor(
    private readonly fixturesDir: string,
    private readonly name: string,
    private readonly upstream: () => Promise<string>,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** The files written so far, in the order their goals started. */
  files(): string[] {
    return [...this.goals.values()].map((goal) => goal.file);
  }

  async answered(modelId: string, key: CallOfGoal, response: JsonObject): Promise<void> {
    const call = this.callOf(modelId, key);
    call.response = turnOfAnswer(response);
    await this.write(key.goalId);
  }

  async failed(modelId: string, key: CallOfGoal, error: string, message: string): Promise<void> {
    // Only the service's own errors can be replayed; a refusal of ours (a bad body) is not the service's.
    if (!isBedrockError(error)) return;
    this.callOf(modelId, key).errors.push({ error, message });
    await this.write(key.goalId);
  }

  private callOf(modelId: string, key: CallOfGoal): RecordedCall {
    let goal = this.goals.get(key.goalId);
    if (goal === undefined) {
      const suffix = this.goals.size === 0 ? "" : `-${this.goals.size + 1}`;
      goal = {
        file: fixtureFileOf(this.fixturesDir, `${this.name}${suffix}`),
        model: modelId,
        roles: new Map(),
      };
      this.goals.set(key.goalId, goal);
      this.log(`recording goal ${key.goalId} into ${goal.file}`);
    }
    const calls = goal.roles.get(key.role) ?? new Map<number, RecordedCall>();
    goal.roles.set(key.role, calls);
    const call = calls.get(key.call) ?? { errors: [] };
    calls.set(key.call, call);
    return call;
  }

  private async write(goalId: string): Promise<void> {
    const goal = this.goals.get(goalId);
    if (goal === undefined) return;
    const recordedFrom: RecordedFrom = {
      model: goal.model,
      recordedAt: new Date().toISOString(),
      upstream: await this.upstream(),
    };
    const roles: Record<string, (ErrorTurn | ResponseTurn)[]> = {};
    for (const [role, calls] of goal.roles) {
      // Call numbers count from the goal's checkpoints, so they come without gaps; sorted, because
      // concurrent steps may answer out of order.
      roles[role] = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .flatMap(([, call]) => [...call.errors, ...(call.response === undefined ? [] : [call.response])]);
    }
    mkdirSync(path.dirname(goal.file), { recursive: true });
    const temporary = `${goal.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ recordedFrom, ...roles }, null, 2)}\n`);
    renameSync(temporary, goal.file);
  }
}
