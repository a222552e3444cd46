import { randomBytes } from "node:crypto";
import type { JsonValue } from "../shared/cloud-assembly-model";
import { AwsApiError, StatesError } from "../shared/errors";
import { parseJson } from "../shared/json";

const MAX_TOKEN_LENGTH = 2048;
const MAX_OUTPUT_BYTES = 256 * 1024;

export interface PendingTask {
  readonly token: string;
  readonly executionArn: string;
  readonly stateName: string;
  readonly createdAt: Date;
}

interface Waiter extends PendingTask {
  readonly resolve: (output: JsonValue) => void;
  readonly reject: (error: StatesError) => void;
  readonly heartbeatSeconds: number | undefined;
  heartbeat: NodeJS.Timeout | undefined;
}

/**
 * The task tokens of `.waitForTaskToken` states, which aws-local-stepfunctions does not have, and
 * the SendTask* answers to them. The engine resolves `$$.Task.Token` through a getter on the
 * context object (`mintForContext`); the Task override that runs right after, in the same tick,
 * claims the token and waits on it.
 */
export class TaskTokenRegistry {
  private readonly waiters = new Map<string, Waiter>();
  /** Tokens that were answered, timed out or cancelled: a late answer gets TaskTimedOut. */
  private readonly closed = new Set<string>();
  private unclaimed: string | undefined;
  /** Every token handed to a task, so tests can check none ever leaves where it belongs. */
  private readonly minted = new Set<string>();

  /** For the context object's `Task.Token` getter: one token per Task state entry. */
  mintForContext(): string {
    if (this.unclaimed === undefined) {
      this.unclaimed = randomBytes(48).toString("base64url");
      this.minted.add(this.unclaimed);
    }
    return this.unclaimed;
  }

  /** Every token this registry minted so far (answered or not). */
  issued(): string[] {
    return [...this.minted];
  }

  /** Takes the token minted for the Task that is starting, if its Parameters read one. */
  claim(): string | undefined {
    const token = this.unclaimed;
    this.unclaimed = undefined;
    return token;
  }

  /** Waits for SendTaskSuccess (its output) or SendTaskFailure (a StatesError of its error name). */
  wait(
    token: string,
    task: { executionArn: string; stateName: string; heartbeatSeconds?: number },
  ): Promise<JsonValue> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        token,
        executionArn: task.executionArn,
        stateName: task.stateName,
        createdAt: new Date(),
        resolve,
        reject,
        heartbeatSeconds: task.heartbeatSeconds,
        heartbeat: undefined,
      };
      this.waiters.set(token, waiter);
      this.armHeartbeat(waiter);
    });
  }

  sendTaskSuccess(token: string, output: string): void {
    this.waiterFor(token);
    if (Buffer.byteLength(output) > MAX_OUTPUT_BYTES) {
      throw new AwsApiError("InvalidOutput", "Output is larger than 256 KiB");
    }
    let value: JsonValue;
    try {
      value = parseJson(output);
    } catch {
      throw new AwsApiError("InvalidOutput", "Invalid Output: output is not valid JSON");
    }
    this.settle(token, (waiter) => waiter.resolve(value));
  }

  sendTaskFailure(token: string, error = "", cause = ""): void {
    this.waiterFor(token);
    // AWS reports a failure sent without an error name with an empty Error.
    this.settle(token, (waiter) => waiter.reject(new StatesError(error, cause)));
  }

  sendTaskHeartbeat(token: string): void {
    this.armHeartbeat(this.waiterFor(token));
  }

  /** Ends the waits of an execution (all, or one state's) without an answer. */
  cancel(executionArn: string, reason: string, stateName?: string): void {
    for (const waiter of [...this.waiters.values()]) {
      if (waiter.executionArn !== executionArn || (stateName !== undefined && waiter.stateName !== stateName))
        continue;
      // Final: a stopped execution's task must not be retried or caught.
      this.settle(waiter.token, (w) => w.reject(new StatesError("States.Runtime", reason, { final: true })));
    }
  }

  /** Forgets one token that will never be waited on (its Lambda failed). */
  discard(token: string): void {
    this.settle(token, (waiter) =>
      waiter.reject(new StatesError("States.Runtime", "task ended", { final: true })),
    );
  }

  pending(): PendingTask[] {
    return [...this.waiters.values()].map(({ token, executionArn, stateName, createdAt }) => ({
      token,
      executionArn,
      stateName,
      createdAt,
    }));
  }

  private waiterFor(token: string): Waiter {
    if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
      throw new AwsApiError("InvalidToken", "Invalid token: it must be 1 to 2048 characters");
    }
    const waiter = this.waiters.get(token);
    if (waiter !== undefined) return waiter;
    if (this.closed.has(token)) {
      throw new AwsApiError("TaskTimedOut", "Task Timed Out: 'Provided task does not exist anymore'");
    }
    throw new AwsApiError("InvalidToken", "Invalid token: no task was issued this token");
  }

  private settle(token: string, outcome: (waiter: Waiter) => void): void {
    const waiter = this.waiters.get(token);
    if (waiter === undefined) return;
    this.waiters.delete(token);
    this.closed.add(token);
    clearTimeout(waiter.heartbeat);
    outcome(waiter);
  }

  private armHeartbeat(waiter: Waiter): void {
    if (waiter.heartbeatSeconds === undefined) return;
    clearTimeout(waiter.heartbeat);
    waiter.heartbeat = setTimeout(
      () =>
        this.settle(waiter.token, (w) =>
          w.reject(new StatesError("States.HeartbeatTimeout", `No heartbeat for ${w.heartbeatSeconds} s`)),
        ),
      (waiter.heartbeatSeconds ?? 0) * 1000,
    );
  }
}
