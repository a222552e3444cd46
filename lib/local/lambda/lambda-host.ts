import type { FunctionSpec, JsonValue } from "../shared/cloud-assembly-model";
import { AwsApiError } from "../shared/errors";
import { lambdaEnvironment, type ServiceEndpoints } from "./lambda-env";
import { LambdaSandbox, type LogLine } from "./lambda-sandbox";

export interface LambdaHostOptions {
  readonly functions: readonly FunctionSpec[];
  readonly endpoints: ServiceEndpoints;
  /** Variables set on every function over its own (`HEAVY_MODEL_ID` and `FAST_MODEL_ID` from `--model`). */
  readonly environmentOverrides?: Readonly<Record<string, string>>;
  /** Sandboxes per function, like reserved concurrency; further invocations queue. @default 10 */
  readonly maxConcurrency?: number;
  /** Where the functions' output goes. @default each line to this process's stdout/stderr, prefixed with the function name */
  readonly log?: LogLine;
}

interface Pool {
  readonly spec: FunctionSpec;
  readonly idle: LambdaSandbox[];
  readonly all: Set<LambdaSandbox>;
  readonly waiting: (() => void)[];
  coldStarts: number;
}

const QUALIFIED_FUNCTION = /^(arn:[^:]+:lambda:[^:]*:[^:]*:function:[^:]+):([^:]+)$/;

/** Each version of a function runs in sandboxes of its own: they hold different code. */
const poolKey = (spec: FunctionSpec) =>
  spec.version === undefined ? spec.arn : `${spec.arn}:${spec.version}`;

const prefixedLog: LogLine = (functionName, line, stream) =>
  (stream === "stdout" ? process.stdout : process.stderr).write(`[${functionName}] ${line}\n`);

/**
 * Runs the Lambda bundles of cdk.out. Each function gets sandboxes (worker threads) of its own,
 * started on first use and reused while warm; concurrent invocations of one function get
 * separate sandboxes, as in Lambda.
 */
export class LambdaHost {
  private readonly pools = new Map<string, Pool>();
  private readonly options: LambdaHostOptions;
  private closed = false;

  constructor(options: LambdaHostOptions) {
    this.options = options;
    for (const spec of options.functions) {
      this.pools.set(poolKey(spec), { spec, idle: [], all: new Set(), waiting: [], coldStarts: 0 });
    }
  }

  /**
   * A function by name, ARN or qualified ARN: `…:function:name` and `…:$LATEST` are the newest
   * synth's, `…:function:name:3` the version 3 kept (a step of a run pinned to it).
   */
  find(functionRef: string): FunctionSpec | undefined {
    const match = QUALIFIED_FUNCTION.exec(functionRef);
    const unqualified = match?.[1] ?? functionRef;
    const qualifier = match?.[2] === "$LATEST" ? undefined : match?.[2];
    for (const { spec } of this.pools.values()) {
      if (spec.version !== qualifier) continue;
      if (spec.arn === unqualified || spec.functionName === functionRef) return spec;
    }
    return undefined;
  }

  /** The sandbox pool of a function, or Lambda's ResourceNotFoundException. */
  private poolOf(functionRef: string): Pool {
    const spec = this.find(functionRef);
    const pool = spec === undefined ? undefined : this.pools.get(poolKey(spec));
    if (pool === undefined) {
      throw new AwsApiError("ResourceNotFoundException", `Function not found: ${functionRef}`, 404);
    }
    return pool;
  }

  /** The process.env a function's sandboxes get. */
  environmentOf(spec: FunctionSpec): Record<string, string> {
    return lambdaEnvironment(spec, this.options.endpoints, this.options.environmentOverrides);
  }

  /** How many sandboxes of the function have started (cold starts). */
  coldStarts(functionRef: string): number {
    const spec = this.find(functionRef);
    return spec === undefined ? 0 : (this.pools.get(poolKey(spec))?.coldStarts ?? 0);
  }

  /**
   * Invokes synchronously (RequestResponse): the function's result, or a LambdaFunctionError
   * named after the function's error type.
   */
  async invoke(functionRef: string, event: unknown): Promise<JsonValue> {
    const pool = this.poolOf(functionRef);
    const sandbox = await this.acquire(pool);
    try {
      return await sandbox.invoke(event);
    } finally {
      this.release(pool, sandbox);
    }
  }

  /**
   * InvokeWithResponseStream: the bytes of a streaming handler reach `onChunk` as it writes them.
   * The sandbox stays taken until the handler returns, as a Lambda invocation does.
   */
  async invokeStream(
    functionRef: string,
    event: unknown,
    onChunk: (chunk: Uint8Array) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const pool = this.poolOf(functionRef);
    const sandbox = await this.acquire(pool);
    try {
      await sandbox.invokeStream(event, onChunk, signal);
    } finally {
      this.release(pool, sandbox);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const sandboxes = [...this.pools.values()].flatMap((pool) => {
      for (const wake of pool.waiting.splice(0)) wake();
      return [...pool.all];
    });
    await Promise.all(sandboxes.map((sandbox) => sandbox.terminate()));
  }

  private async acquire(pool: Pool): Promise<LambdaSandbox> {
    for (;;) {
      if (this.closed) throw new AwsApiError("ServiceException", "the local runtime is shutting down", 500);
      const warm = pool.idle.pop();
      if (warm?.alive) return warm;
      if (warm !== undefined) {
        pool.all.delete(warm);
        continue;
      }
      if (pool.all.size < (this.options.maxConcurrency ?? 10)) {
        const sandbox = new LambdaSandbox(
          pool.spec,
          this.environmentOf(pool.spec),
          this.options.log ?? prefixedLog,
        );
        pool.all.add(sandbox);
        pool.coldStarts += 1;
        return sandbox;
      }
      await new Promise<void>((resolve) => pool.waiting.push(resolve));
    }
  }

  private release(pool: Pool, sandbox: LambdaSandbox): void {
    if (sandbox.alive && !this.closed) pool.idle.push(sandbox);
    else pool.all.delete(sandbox);
    pool.waiting.shift()?.();
  }
}
