import "./polyfill";
import { randomUUID } from "node:crypto";
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
  type StateMachineDefinition,
} from "aws-local-stepfunctions";
import { walkStates } from "../cdk-out/read-state-machines";
import type { JsonObject, JsonValue, StateMachineSpec } from "../shared/cloud-assembly-model";
import { AwsApiError, CloudAssemblyError } from "../shared/errors";
import { parseJson } from "../shared/json";
import { Execution, type ExecutionStatus } from "./execution";
import { historyEventsOf } from "./execution-history";
import { prepareDefinition } from "./prepare-definition";
import { taskHandlers, unsupportedResources } from "./task-handlers";
import { TaskTokenRegistry } from "./task-tokens";

/** Step Functions' execution name rule: 1-80 characters, none of whitespace, brackets, wildcards or `"#%\^|~`$&,;:/`. */
const EXECUTION_NAME = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\p{Cc}]{1,80}$/u;
const MAX_INPUT_BYTES = 256 * 1024;

export interface StateMachineRunnerOptions {
  readonly stateMachines: readonly StateMachineSpec[];
  /** Invokes a Lambda function synchronously (the local LambdaHost). */
  readonly invokeFunction: (functionRef: string, payload: JsonValue) => Promise<JsonValue>;
  /**
   * Milliseconds every Retry waits instead of IntervalSeconds × BackoffRate^n, so retries are fast
   * locally; `null` keeps the definition's intervals. @default 0
   */
  readonly retryIntervalMs?: number | null;
  /** @default no logging */
  readonly log?: (line: string) => void;
}

interface LocalMachine {
  readonly spec: StateMachineSpec;
  readonly definition: JsonObject;
  readonly engine: StateMachine;
}

/**
 * Runs the synthesized state machines with aws-local-stepfunctions: Task states invoke the local
 * Lambda bundles, callback tasks wait on the task-token registry, and every execution is kept in
 * a registry the local Step Functions endpoint answers from.
 */
export class StateMachineRunner {
  readonly tokens = new TaskTokenRegistry();
  private readonly machines = new Map<string, LocalMachine>();
  private readonly executions = new Map<string, Execution>();
  /** How to stop each running execution (the engine's abort plus our bookkeeping). */
  private readonly aborters = new Map<string, (details: { error?: string; cause?: string }) => void>();
  private readonly options: StateMachineRunnerOptions;
  /** When the runner loaded the machines: their `creationDate` locally. */
  readonly createdAt = new Date();

  constructor(options: StateMachineRunnerOptions) {
    this.options = options;
    for (const spec of options.stateMachines) {
      const unsupported = unsupportedResources(spec.definition);
      if (unsupported.length > 0) {
        throw new CloudAssemblyError(
          `State machine ${spec.name}: Task resources the local runtime cannot run (${unsupported.join("; ")}). ` +
            "Supported: a Lambda function ARN, lambda:invoke, lambda:invoke.waitForTaskToken, states:startExecution",
        );
      }
      const definition = prepareDefinition(spec.definition);
      // The definition's own shape was checked when it was read; the engine validates it again here.
      const engine = new StateMachine(definition as unknown as StateMachineDefinition);
      this.machines.set(spec.arn, { spec, definition, engine });
    }
  }

  stateMachineArns(): string[] {
    return [...this.machines.keys()];
  }

  /** The state machines this runner runs, as read from cdk.out. */
  stateMachines(): StateMachineSpec[] {
    return [...this.machines.values()].map((machine) => machine.spec);
  }

  /**
   * StartExecution: idempotent for the same name and input while that execution runs; otherwise
   * a reused name is ExecutionAlreadyExists. `input` is JSON text or a value.
   */
  startExecution(
    stateMachineArn: string,
    input: string | JsonValue = {},
    name: string = randomUUID(),
  ): Execution {
    const machine = this.machines.get(stateMachineArn);
    if (machine === undefined) {
      throw new AwsApiError("StateMachineDoesNotExist", `State Machine Does Not Exist: '${stateMachineArn}'`);
    }
    if (!EXECUTION_NAME.test(name)) throw new AwsApiError("InvalidName", `Invalid Name: '${name}'`);
    const inputText = typeof input === "string" ? input : JSON.stringify(input);
    const executionArn = `${stateMachineArn.replace(":stateMachine:", ":execution:")}:${name}`;
    const existing = this.executions.get(executionArn);
    if (existing !== undefined) {
      if (existing.isRunning() && existing.inputText === inputText) return existing;
      throw new AwsApiError("ExecutionAlreadyExists", `Execution Already Exists: '${executionArn}'`);
    }
    if (Buffer.byteLength(inputText) > MAX_INPUT_BYTES) {
      throw new AwsApiError("InvalidExecutionInput", "Execution input is larger than 256 KiB");
    }
    let parsedInput: JsonValue;
    try {
      parsedInput = parseJson(inputText);
    } catch {
      throw new AwsApiError("InvalidExecutionInput", "Invalid State Machine Execution Input: not JSON");
    }
    const execution = new Execution(executionArn, stateMachineArn, name, parsedInput, inputText);
    // Registered before the run starts: the engine runs the first state synchronously, and a Lambda
    // there may already ask about this execution.
    this.executions.set(executionArn, execution);
    this.run(machine, execution);
    this.options.log?.(`execution ${name} started on ${machine.spec.name}`);
    return execution;
  }

  describe(executionArn: string): Execution | undefined {
    return this.executions.get(executionArn);
  }

  list(filter: { stateMachineArn?: string; status?: ExecutionStatus } = {}): Execution[] {
    return [...this.executions.values()]
      .filter((e) => filter.stateMachineArn === undefined || e.stateMachineArn === filter.stateMachineArn)
      .filter((e) => filter.status === undefined || e.status === filter.status)
      .sort((a, b) => b.startDate.getTime() - a.startDate.getTime());
  }

  /** StopExecution: a running execution ends ABORTED; a finished one is left as it is. */
  stop(executionArn: string, details: { error?: string; cause?: string } = {}): Execution {
    const execution = this.executions.get(executionArn);
    if (execution === undefined) {
      throw new AwsApiError("ExecutionDoesNotExist", `Execution Does Not Exist: '${executionArn}'`);
    }
    this.aborters.get(executionArn)?.(details);
    return execution;
  }

  /** Stops every running execution and waits until each has drained its event log. */
  async close(): Promise<void> {
    for (const executionArn of this.aborters.keys()) {
      this.stop(executionArn, { cause: "the local runtime is shutting down" });
    }
    await Promise.all([...this.executions.values()].map((e) => e.done));
  }

  private run(machine: LocalMachine, execution: Execution): void {
    const { tokens } = this;
    const retryIntervalMs = this.options.retryIntervalMs === undefined ? 0 : this.options.retryIntervalMs;
    const handlers = taskHandlers(machine.definition, execution, {
      tokens,
      invokeFunction: this.options.invokeFunction,
      startExecution: (arn, input, name) => this.startExecution(arn, input, name),
    });
    const roleArn = `arn:aws:iam::000000000000:role/${machine.spec.name}-role`;
    const run = machine.engine.run(execution.input, {
      overrides: {
        taskResourceLocalHandlers: handlers,
        ...(retryIntervalMs === null
          ? {}
          : {
              retryIntervalOverrides: Object.fromEntries(
                [...walkStates(machine.definition)]
                  .filter(([, s]) => s.Retry !== undefined)
                  .map(([n]) => [n, retryIntervalMs]),
              ),
            }),
      },
      context: {
        Execution: {
          Id: execution.executionArn,
          Name: execution.name,
          RoleArn: roleArn,
          RedriveCount: 0,
        },
        StateMachine: { Id: machine.spec.arn, Name: machine.spec.name },
        // A getter: every Task state that reads $$.Task.Token gets a fresh token (see TaskTokenRegistry).
        Task: {
          get Token() {
            return tokens.mintForContext();
          },
        },
      },
    });

    this.aborters.set(execution.executionArn, (details) => {
      if (!execution.isRunning()) return;
      execution.finish("ABORTED", details);
      tokens.cancel(execution.executionArn, "The execution was stopped");
      run.abort();
    });

    const drained = (async () => {
      // The engine buffers events until read: draining keeps memory flat and feeds the counters.
      for await (const event of run.eventLogs) {
        const stateName = "state" in event ? event.state.name : undefined;
        const error = "Error" in event ? String(event.Error) : undefined;
        execution.record({ type: event.type, timestamp: event.timestamp, stateName, error });
        execution.recordHistory(historyEventsOf(event, roleArn), new Date(event.timestamp));
        // The engine timed a task out: release its callback wait so a late answer gets TaskTimedOut.
        if (event.type === "StateFailed" && stateName !== undefined && error === "States.Timeout") {
          tokens.cancel(execution.executionArn, "States.Timeout", stateName);
        }
      }
    })();

    execution.done = (async () => {
      try {
        const output = await run.result;
        execution.finish("SUCCEEDED", { output });
      } catch (error) {
        if (error instanceof ExecutionAbortedError) execution.finish("ABORTED");
        else if (error instanceof ExecutionTimeoutError)
          execution.finish("TIMED_OUT", { error: "States.Timeout" });
        else {
          const failure =
            error instanceof ExecutionError && error.cause instanceof Error ? error.cause : error;
          execution.finish("FAILED", {
            error: failure instanceof Error ? failure.name : "States.Runtime",
            cause: failure instanceof Error ? failure.message : String(failure),
          });
        }
      } finally {
        tokens.cancel(execution.executionArn, `The execution ended (${execution.status})`);
        this.aborters.delete(execution.executionArn);
      }
      await drained.catch(() => {});
      this.options.log?.(
        `execution ${execution.name} ${execution.status}${execution.error === undefined ? "" : ` (${execution.error})`}`,
      );
    })();
  }
}
