import { randomBytes } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";

/**
 * X-Ray subsegments around the store, model and tool calls, sent straight to the X-Ray daemon
 * Lambda runs beside every function with active tracing (UDP, AWS_XRAY_DAEMON_ADDRESS), under the
 * invocation's segment (_X_AMZN_TRACE_ID). The X-Ray SDK (and Powertools Tracer on top of it) would
 * add about 127 KB to every bundle and 100-150 ms to every cold start (measured for issue #18): more
 * than the bundle and cold-import budgets leave. Outside Lambda, or when the invocation is not
 * sampled, nothing is sent and a call costs one env lookup.
 */

/** Values X-Ray indexes for filter expressions (`annotation.goalId = "…"`). */
export type Annotations = Readonly<Record<string, string | number | boolean>>;

export interface TraceContext {
  readonly traceId: string;
  readonly parentId: string;
}

/** Where subsegment documents go; a test passes its own. */
export type SegmentSink = (document: SubsegmentDocument) => void;

export interface SubsegmentDocument {
  readonly name: string;
  readonly id: string;
  readonly trace_id: string;
  readonly parent_id: string;
  readonly type: "subsegment";
  readonly namespace: "remote";
  readonly start_time: number;
  readonly end_time: number;
  readonly annotations?: Annotations;
  readonly fault?: true;
  readonly cause?: {
    readonly exceptions: readonly { readonly id: string; readonly type: string; readonly message: string }[];
  };
}

/**
 * The invocation's trace, when it is sampled: `Root=1-…;Parent=…;Sampled=1`. Lambda sets the header
 * per invocation; without it (local runtime, tests) or unsampled there is nothing to trace.
 */
export function traceContext(
  header: string | undefined = process.env._X_AMZN_TRACE_ID,
): TraceContext | undefined {
  if (header === undefined) return undefined;
  const fields = new Map(
    header.split(";").map((part) => {
      const [key = "", value = ""] = part.split("=");
      return [key.trim(), value.trim()] as const;
    }),
  );
  const traceId = fields.get("Root");
  const parentId = fields.get("Parent");
  if (traceId === undefined || parentId === undefined || fields.get("Sampled") !== "1") return undefined;
  return { traceId, parentId };
}

/**
 * Runs `call` and records it as a subsegment named `name` (its duration, annotations and any error
 * it threw, which is rethrown unchanged).
 */
export async function traced<R>(
  name: string,
  annotations: Annotations,
  call: () => Promise<R>,
  options: {
    readonly context?: TraceContext;
    readonly sink?: SegmentSink;
    /** When the call began, in epoch seconds, if before this function was called. */
    readonly startTime?: number;
  } = {},
): Promise<R> {
  const context = options.context ?? traceContext();
  if (context === undefined) return call();
  const startTime = options.startTime ?? Date.now() / 1000;
  const send = (error?: unknown) =>
    (options.sink ?? daemonSink)(subsegment(name, context, annotations, startTime, error));
  try {
    const result = await call();
    send();
    return result;
  } catch (error) {
    send(error ?? new Error("unknown error"));
    throw error;
  }
}

/**
 * `port` with every method that answers a promise traced as `<portName>.<method>`: the store's
 * and the workspace's operations, without a wrapper per operation. Synchronous answers (a tool
 * runner's `specsFor`) pass through untraced.
 */
export function withSubsegments<T extends object>(
  port: T,
  portName: string,
  options: { readonly annotations?: Annotations; readonly sink?: SegmentSink } = {},
): T {
  return new Proxy(port, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]): unknown => {
        const context = traceContext();
        const startTime = Date.now() / 1000;
        const answer: unknown = Reflect.apply(value, target, args);
        if (context === undefined || !isThenable(answer)) return answer;
        return traced(`${portName}.${property}`, options.annotations ?? {}, async () => await answer, {
          context,
          startTime,
          ...(options.sink === undefined ? {} : { sink: options.sink }),
        });
      };
    },
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === "function";
}

function subsegment(
  name: string,
  context: TraceContext,
  annotations: Annotations,
  startTime: number,
  error: unknown,
): SubsegmentDocument {
  return {
    name: name.replace(/[^\w.:/%&#=+\-@ ]/g, "_").slice(0, 200),
    id: randomBytes(8).toString("hex"),
    trace_id: context.traceId,
    parent_id: context.parentId,
    type: "subsegment",
    namespace: "remote",
    start_time: startTime,
    end_time: Date.now() / 1000,
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    ...(error === undefined
      ? {}
      : {
          fault: true as const,
          cause: {
            exceptions: [
              {
                id: randomBytes(8).toString("hex"),
                type: error instanceof Error ? error.name : "Error",
                message: error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500),
              },
            ],
          },
        }),
  };
}

let socket: Socket | undefined;

/** The daemon's UDP address: `host:port`, or the `udp:host:port tcp:host:port` form. */
export function daemonAddress(
  value: string | undefined = process.env.AWS_XRAY_DAEMON_ADDRESS,
): { host: string; port: number } | undefined {
  const udp = value?.split(/\s+/).find((part) => !part.startsWith("tcp:"));
  const match = udp?.replace(/^udp:/, "").match(/^(.+):(\d+)$/);
  return match?.[1] === undefined ? undefined : { host: match[1], port: Number(match[2]) };
}

/** Sends one document to the daemon; a lost datagram loses a subsegment, never the call. */
const daemonSink: SegmentSink = (document) => {
  const address = daemonAddress();
  if (address === undefined) return;
  if (socket === undefined) {
    socket = createSocket("udp4");
    socket.on("error", () => undefined);
    socket.unref();
  }
  const message = Buffer.from(`{"format":"json","version":1}\n${JSON.stringify(document)}`);
  socket.send(message, address.port, address.host);
};
