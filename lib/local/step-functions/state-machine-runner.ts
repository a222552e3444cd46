import "./polyfill";
import { randomUUID } from "node:crypto";
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
  type StateMachineDefinition,
} from "aws-local-stepfunctions";
import { unqualifiedStateMachineArn } from "../../../lambdas/core/goal/runs-on";
import { walkStates } from "../cdk-out/read-state-machines";
import type {
  JsonObject,
  JsonValue,
  StateMachineSpec,
  StateMachineVersion,
} from "../shared/cloud-assembly-model";
import { AwsApiError, CloudAssemblyError } from "../shared/errors";
import { parseJson } from "../shared/json";
import { Execution, type ExecutionStatus } from "./execution";
import { historyEventsOf } from "./execution-history";
import { prepareDefinition } from "./prepare-definition";
import { taskHandlers, unsupportedResources } from "./task-handlers";
import { TaskTokenRegistry } from "./task-tokens";
import { ValidatedDefinitions } from "./validated-definitions";

/** Step Functions' execution name rule: 1-80 characters, none of whitespace, brackets, wildcards or `"#%\^|~`$&,;:/`. */
const EXECUTION_NAME = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\p{Cc}]{1,80}$/u;
const MAX_INPUT_BYTES = 256 * 1024;

export interface StateMachineRunnerOptions {
  /** The state machines as the newest synth has them (their unqualified ARNs). */
  readonly stateMachines: readonly StateMachineSpec[];
  /** Their published versions, kept across deploys (kept-versions.ts). @default none */
  readonly versions?: readonly StateMachineVersion[];
  /** Aliases (`…:live`) by ARN: the version each routes every new execution to. @default none */
  readonly aliases?: ReadonlyMap<string, string>;
  /** Told when UpdateStateMachineAlias points an alias elsewhere (a rollback), to keep it. */
  readonly onAliasUpdated?: (aliasArn: string, versionArn: string) => void;
  /** Told when DeleteStateMachineVersion removed a version (`goal-loops versions --prune`). */
  readonly onVersionDeleted?: (versionArn: string) => void;
  /** Invokes a Lambda function synchronously (the local LambdaHost). */
  readonly invokeFunction: (functionRef: string, payload: JsonValue) => Promise<JsonValue>;
  /**
   * Milliseconds every Retry waits instead of IntervalSeconds × BackoffRate^n, so retries are fast
   * locally; `null` keeps the definition's intervals. @default 0
   */
  readonly retryIntervalMs?: number | null;
  /** @default no logging */
  readonly log?: (line: string) => void;
  /**
   * Where the definitions the engine accepted are kept across processes (ValidatedDefinitions).
   * @default this process only
   */
  readonly validatedDefinitionsFile?: string;
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
  private readonly versionsByArn = new Map<string, StateMachineVersion>();
  private readonly aliasTargets: Map<string, string>;
  private readonly executions = new Map<string, Execution>();
  /** How to stop each running execution (the engine's abort plus our bookkeeping). */
  private readonly aborters = new Map<string, (details: { error?: string; cause?: string }) => void>();
  private readonly options: StateMachineRunnerOptions;
  /** When the runner loaded the machines: their `creationDate` locally. */
  readonly createdAt = new Date();

  constructor(options: StateMachineRunnerOptions) {
    this.options = options;
    this.aliasTargets = new Map(options.aliases ?? []);
    const validated = new ValidatedDefinitions(options.validatedDefinitionsFile);
    const accepted: string[] = [];
    const compile = (arn: string, spec: StateMachineSpec) => {
      const unsupported = unsupportedResources(spec.definition);
      if (unsupported.length > 0) {
        throw new CloudAssemblyError(
          `State machine ${spec.name}: Task resources the local runtime cannot run (${unsupported.join("; ")}). ` +
            "Supported: a Lambda function ARN, lambda:invoke, lambda:invoke.waitForTaskToken, states:startExecution",
        );
      }
      const definition = prepareDefinition(spec.definition);
      // The definition's own shape was checked when it was read; the engine validates it again here,
      // unless it accepted the same definition before (ValidatedDefinitions).
      const key = ValidatedDefinitions.keyOf(definition);
      const engine = new StateMachine(
        definition as unknown as StateMachineDefinition,
        validated.has(key) ? { validationOptions: { noValidate: true } } : undefined,
      );
      accepted.push(key);
      this.machines.set(arn, { spec, definition, engine });
    };
    for (const spec of options.stateMachines) compile(spec.arn, spec);
    for (const version of options.versions ?? []) {
      compile(version.arn, version.spec);
      this.versionsByArn.set(version.arn, version);
    }
    validated.add(accepted);
  }

  /** The state machines' own (unqualified) ARNs. */
  stateMachineArns(): string[] {
    return this.options.stateMachines.map((spec) => spec.arn);
  }

  /** The state machines this runner runs, as the newest synth has them. */
  stateMachines(): StateMachineSpec[] {
    return [...this.options.stateMachines];
  }

  /** A published version by its ARN. */
  version(versionArn: string): StateMachineVersion | undefined {
    return this.versionsByArn.get(versionArn);
  }

  /** The published versions of the state machine `stateMachineArn`, newest first. */
  versionsOf(stateMachineArn: string): StateMachineVersion[] {
    return [...this.versionsByArn.values()]
      .filter((version) => unqualifiedStateMachineArn(version.arn) === stateMachineArn)
      .sort((a, b) => versionNumber(b.arn) - versionNumber(a.arn));
  }

  /** The version an alias routes to, or undefined for no such alias. */
  aliasTarget(aliasArn: string): string | undefined {
    return this.aliasTargets.get(aliasArn);
  }

  /**
   * DeleteStateMachineVersion: a version an alias routes to cannot go (ConflictException, as on
   * AWS); an unknown one is already gone.
   */
  deleteVersion(versionArn: string): void {
    if (!this.versionsByArn.has(versionArn)) return;
    if ([...this.aliasTargets.values()].includes(versionArn)) {
      throw new AwsApiError("ConflictException", `Version ${versionArn} is referenced by an alias`);
    }
    this.versionsByArn.delete(versionArn);
    this.machines.delete(versionArn);
    this.options.onVersionDeleted?.(versionArn);
    this.options.log?.(`deleted ${versionArn}`);
  }

  /** UpdateStateMachineAlias: new executions through the alias start on `versionArn`. */
  updateAlias(aliasArn: string, versionArn: string): void {
    if (!this.aliasTargets.has(aliasArn)) {
      throw new AwsApiError("ResourceNotFound", `Resource not found: '${aliasArn}'`);
    }
    const version = this.versionsByArn.get(versionArn);
    if (
      version === undefined ||
      unqualifiedStateMachineArn(versionArn) !== unqualifiedStateMachineArn(aliasArn)
    ) {
      throw new AwsApiError("ResourceNotFound", `Resource not found: '${versionArn}'`);
    }
    this.aliasTargets.set(aliasArn, versionArn);
    this.options.onAliasUpdated?.(aliasArn, versionArn);
    this.options.log?.(`${aliasArn} now routes to ${versionArn}`);
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
    // Through an alias: the version it routes to now; the run keeps that version to its end.
    const aliasArn = this.aliasTargets.has(stateMachineArn) ? stateMachineArn : undefined;
    const versionArn = aliasArn === undefined ? stateMachineArn : this.aliasTargets.get(stateMachineArn);
    const machine = versionArn === undefined ? undefined : this.machines.get(versionArn);
    if (machine === undefined) {
      throw new AwsApiError("StateMachineDoesNotExist", `State Machine Does Not Exist: '${stateMachineArn}'`);
    }
    if (!EXECUTION_NAME.test(name)) throw new AwsApiError("InvalidName", `Invalid Name: '${name}'`);
    const inputText = typeof input === "string" ? input : JSON.stringify(input);
    // An execution of a version or alias has the state machine's own ARN in its ARN, as on AWS.
    const machineArn = unqualifiedStateMachineArn(stateMachineArn);
    const executionArn = `${machineArn.replace(":stateMachine:", ":execution:")}:${name}`;
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
    const execution = new Execution(executionArn, machineArn, name, parsedInput, inputText, {
      ...(versionArn === undefined || versionArn === machineArn ? {} : { versionArn }),
      ...(aliasArn === undefined ? {} : { aliasArn }),
    });
    // Registered before the run starts: the engine runs the first state synchronously, and a Lambda
    // there may already ask about this execution.
    this.executions.set(executionArn, execution);
    this.run(machine, execution);
    const on = versionArn === machineArn ? "" : ` version ${versionNumber(versionArn ?? "")}`;
    this.options.log?.(`execution ${name} started on ${machine.spec.name}${on}`);
    return execution;
  }

  describe(executionArn: string): Execution | undefined {
    return this.executions.get(executionArn);
  }

  list(filter: { stateMachineArn?: string; status?: ExecutionStatus } = {}): Execution[] {
    return [...this.executions.values()]
      .filter(
        (e) =>
          filter.stateMachineArn === undefined ||
          [e.stateMachineArn, e.versionArn, e.aliasArn].includes(filter.stateMachineArn),
      )
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

/** The number of a version ARN (`…:stateMachine:<name>:3` → 3); 0 for anything else. */
export function versionNumber(versionArn: string): number {
  const number = Number(versionArn.slice(versionArn.lastIndexOf(":") + 1));
  return Number.isInteger(number) ? number : 0;
}
