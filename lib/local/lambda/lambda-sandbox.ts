import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { Worker } from "node:worker_threads";
import * as z from "zod";
import type { FunctionSpec, JsonValue } from "../shared/cloud-assembly-model";
import { type LambdaErrorPayload, LambdaFunctionError } from "../shared/errors";
import { parseJson } from "../shared/json";

const WORKER_FILE = new URL("./lambda-worker.mjs", import.meta.url);

const ErrorPayloadSchema = z.object({
  errorType: z.string(),
  errorMessage: z.string(),
  trace: z.array(z.string()).optional(),
});

const WorkerMessageSchema = z.union([
  z.object({ type: z.literal("ready") }),
  z.object({ type: z.literal("init-error"), error: ErrorPayloadSchema }),
  z.object({ type: z.literal("result"), id: z.string(), ok: z.literal(true), json: z.string() }),
  z.object({ type: z.literal("result"), id: z.string(), ok: z.literal(false), error: ErrorPayloadSchema }),
  z.object({ type: z.literal("chunk"), id: z.string(), data: z.instanceof(Uint8Array) }),
]);

export type LogLine = (functionName: string, line: string, stream: "stdout" | "stderr") => void;

interface InFlight {
  readonly id: string;
  readonly resolve: (value: JsonValue) => void;
  readonly reject: (error: LambdaFunctionError) => void;
  readonly timer: NodeJS.Timeout;
  /** A streaming invocation's bytes, as the handler writes them. */
  readonly onChunk?: (chunk: Uint8Array) => void;
}

/**
 * One Lambda sandbox: a worker thread with the function's own process.env that loads the bundle
 * once and runs one invocation at a time. A timeout or a crash ends the sandbox, as in Lambda.
 */
export class LambdaSandbox {
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private inFlight: InFlight | undefined;
  private deadReason: LambdaErrorPayload | undefined;

  constructor(
    private readonly spec: FunctionSpec,
    env: Record<string, string>,
    log: LogLine,
  ) {
    const { assetDir, handler, functionName, arn, memoryMb } = spec;
    this.worker = new Worker(WORKER_FILE, {
      workerData: { assetDir, handler, functionName, arn, memoryMb },
      // A private copy becomes the worker's process.env: functions never see each other's variables.
      env,
      // No loader flags (tsx, vitest) in the sandbox: bundles are plain JavaScript, as in Lambda.
      execArgv: [],
      stdout: true,
      stderr: true,
    });
    this.worker.unref();
    pipeLines(this.worker.stdout, (line) => log(functionName, line, "stdout"));
    pipeLines(this.worker.stderr, (line) => log(functionName, line, "stderr"));

    this.ready = new Promise<void>((resolve, reject) => {
      this.worker.on("message", (raw: unknown) => {
        const message = WorkerMessageSchema.parse(raw);
        if (message.type === "ready") return resolve();
        if (message.type === "init-error") {
          this.die(message.error);
          return reject(new LambdaFunctionError(message.error));
        }
        if (message.type === "chunk") {
          if (this.inFlight?.id === message.id) this.inFlight.onChunk?.(message.data);
          return;
        }
        this.settle(message.id, message.ok ? { json: message.json } : { error: message.error });
      });
      this.worker.on("error", (error) => {
        const payload = { errorType: error.name || "Runtime.ExitError", errorMessage: error.message };
        this.die(payload);
        reject(new LambdaFunctionError(payload));
      });
      this.worker.on("exit", (code) => {
        const payload = {
          errorType: "Runtime.ExitError",
          errorMessage: `Runtime exited with error: exit status ${code}`,
        };
        this.die(payload);
        reject(new LambdaFunctionError(payload));
      });
    });
    // An init failure is reported to the invocation that waits for it; never unhandled.
    this.ready.catch(() => {});
  }

  get alive(): boolean {
    return this.deadReason === undefined;
  }

  async invoke(event: unknown): Promise<JsonValue> {
    return this.run(event);
  }

  /**
   * Invokes a handler wrapped in `awslambda.streamifyResponse` (InvokeWithResponseStream): its
   * bytes reach `onChunk` as it writes them; resolves when it returned and its stream ended.
   * Aborting `signal` closes the response stream, as a client that went away does.
   */
  async invokeStream(
    event: unknown,
    onChunk: (chunk: Uint8Array) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.run(event, { onChunk, ...(signal ? { signal } : {}) });
  }

  private async run(
    event: unknown,
    streaming?: { onChunk: (chunk: Uint8Array) => void; signal?: AbortSignal },
  ): Promise<JsonValue> {
    await this.ready;
    if (this.deadReason !== undefined) throw new LambdaFunctionError(this.deadReason);
    if (this.inFlight !== undefined) throw new Error("a sandbox runs one invocation at a time");
    const { timeoutSeconds } = this.spec;
    const id = randomUUID();
    return new Promise<JsonValue>((resolve, reject) => {
      const timer = setTimeout(() => {
        // Lambda stops the sandbox at its timeout; the next invocation gets a fresh one.
        const payload = {
          errorType: "Sandbox.Timedout",
          errorMessage: `RequestId: ${id} Error: Task timed out after ${timeoutSeconds.toFixed(2)} seconds`,
        };
        this.settle(id, { error: payload });
        this.die(payload);
        void this.worker.terminate();
      }, timeoutSeconds * 1000);
      this.inFlight = { id, resolve, reject, timer, ...(streaming ? { onChunk: streaming.onChunk } : {}) };
      streaming?.signal?.addEventListener("abort", () => this.worker.postMessage({ type: "abort", id }), {
        once: true,
      });
      this.worker.postMessage({
        type: "invoke",
        id,
        requestId: id,
        event,
        stream: streaming !== undefined,
        deadline: Date.now() + timeoutSeconds * 1000,
      });
    });
  }

  async terminate(): Promise<void> {
    this.die({ errorType: "Runtime.ExitError", errorMessage: "the local runtime is shutting down" });
    await this.worker.terminate();
  }

  private settle(id: string, outcome: { json: string } | { error: LambdaErrorPayload }): void {
    const inFlight = this.inFlight;
    if (inFlight === undefined || inFlight.id !== id) return;
    this.inFlight = undefined;
    clearTimeout(inFlight.timer);
    if ("json" in outcome) inFlight.resolve(parseJson(outcome.json));
    else inFlight.reject(new LambdaFunctionError(outcome.error));
  }

  private die(reason: LambdaErrorPayload): void {
    this.deadReason ??= reason;
    if (this.inFlight !== undefined) this.settle(this.inFlight.id, { error: reason });
  }
}

function pipeLines(stream: Readable, onLine: (line: string) => void): void {
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", onLine);
}
