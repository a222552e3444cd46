import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import * as z from "zod";
import { LOCAL_ENVIRONMENT } from "../shared/cloud-assembly-model";
import { AwsApiError, LocalSchedulesError } from "../shared/errors";
import { parseJson } from "../shared/json";
import { listen } from "../shared/listen";
import { MAX_TIMEOUT_SECONDS } from "../step-functions/prepare-definition";

/** What a schedule's EventBridge target puts on the bus when it fires. */
export interface ScheduledEvent {
  readonly EventBusName: string;
  readonly Source: string;
  readonly DetailType: string;
  readonly Detail: string;
}

export interface SchedulerEndpoint {
  readonly url: string;
  /** The schedules that have not fired yet, `group/name` → when. */
  pending(): ReadonlyMap<string, Date>;
  close(): Promise<void>;
}

export interface SchedulerEndpointOptions {
  /** Puts a fired schedule's event on the local bus. */
  readonly putEvent: (event: ScheduledEvent) => Promise<void>;
  /** A JSON file that keeps the schedules across restarts; absent: in memory. */
  readonly stateFile?: string;
  readonly log?: (line: string) => void;
  readonly port?: number;
}

const AT_EXPRESSION = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/;

const ScheduleBodySchema = z.looseObject({
  GroupName: z.string().min(1).default("default"),
  ScheduleExpression: z
    .string()
    .regex(AT_EXPRESSION, "the local scheduler runs one-time at() schedules only"),
  ScheduleExpressionTimezone: z.literal("UTC").default("UTC"),
  ActionAfterCompletion: z.enum(["NONE", "DELETE"]).default("NONE"),
  FlexibleTimeWindow: z.looseObject({ Mode: z.enum(["OFF", "FLEXIBLE"]) }),
  Target: z.looseObject({
    Arn: z.string().regex(/^arn:[^:]+:events:[^:]*:[^:]*:event-bus\/.+$/, "an event bus ARN (locally)"),
    RoleArn: z.string().min(1),
    Input: z.string().default("{}"),
    EventBridgeParameters: z.object({ Source: z.string().min(1), DetailType: z.string().min(1) }),
    // Scheduler's own bounds (API reference, RetryPolicy and DeadLetterConfig): refused past them.
    RetryPolicy: z
      .object({
        MaximumEventAgeInSeconds: z.number().int().min(60).max(86_400).optional(),
        MaximumRetryAttempts: z.number().int().min(0).max(185).optional(),
      })
      .optional(),
    DeadLetterConfig: z
      .object({
        Arn: z
          .string()
          .regex(/^arn:[^:]+:sqs:[^:]+:\d{12}:.+$/, "an SQS queue ARN")
          .optional(),
      })
      .optional(),
  }),
});
type ScheduleBody = z.infer<typeof ScheduleBodySchema>;
const StoredSchema = z.record(z.string(), ScheduleBodySchema.extend({ Name: z.string() }));
type StoredSchedule = z.infer<typeof StoredSchema>[string];

/**
 * EventBridge Scheduler (restJson: POST/PUT/GET/DELETE `/schedules/{Name}`) for the one kind of
 * schedule goal-loops makes: one-time `at()` schedules in UTC whose target is an event bus. A due
 * schedule puts its event on the local bus, then deletes itself when asked to. Schedules are kept
 * in `stateFile`, so a restart re-arms them, and one that fell due while the stack was down fires
 * at once (as the deadline it stands for has passed).
 */
export async function startSchedulerEndpoint(options: SchedulerEndpointOptions): Promise<SchedulerEndpoint> {
  const log = options.log ?? console.log;
  const schedules = new Map<string, StoredSchedule>(Object.entries(loadSchedules(options.stateFile)));
  const timers = new Map<string, NodeJS.Timeout>();
  let closed = false;

  const persist = () => {
    if (options.stateFile === undefined) return;
    mkdirSync(path.dirname(options.stateFile), { recursive: true });
    const temporary = `${options.stateFile}.tmp`;
    writeFileSync(temporary, JSON.stringify(Object.fromEntries(schedules), null, 2));
    renameSync(temporary, options.stateFile); // atomic: a crash leaves the old file or the new one
  };

  const fire = async (key: string, schedule: StoredSchedule) => {
    const { Target } = schedule;
    try {
      await options.putEvent({
        EventBusName: Target.Arn,
        Source: Target.EventBridgeParameters.Source,
        DetailType: Target.EventBridgeParameters.DetailType,
        Detail: Target.Input,
      });
    } catch (error) {
      log(`scheduler: ${key} did not put its event: ${error instanceof Error ? error.message : error}`);
      return; // kept: a restart fires it again
    }
    if (schedules.get(key) !== schedule) return; // replaced meanwhile: the new one is armed
    // A one-time schedule fires once: removed here either way (AWS keeps a NONE one, inert).
    schedules.delete(key);
    persist();
  };

  const arm = (key: string) => {
    clearTimeout(timers.get(key));
    timers.delete(key);
    const schedule = schedules.get(key);
    if (schedule === undefined || closed) return;
    const delayMs = dueAt(schedule).getTime() - Date.now();
    // Node timers hold at most ~24.8 days: a later schedule re-arms on the way.
    const stepMs = Math.min(Math.max(delayMs, 0), MAX_TIMEOUT_SECONDS * 1000);
    const timer = setTimeout(() => {
      timers.delete(key);
      if (stepMs < delayMs) arm(key);
      else void fire(key, schedule);
    }, stepMs);
    timer.unref();
    timers.set(key, timer);
  };

  const handle = async (method: string, name: string, group: string | undefined, body: unknown) => {
    if (method === "POST" || method === "PUT") {
      const parsed = ScheduleBodySchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new AwsApiError("ValidationException", `${issue?.path.join(".") || "body"}: ${issue?.message}`);
      }
      const key = keyOf(parsed.data.GroupName, name);
      if (method === "POST" && schedules.has(key))
        throw new AwsApiError("ConflictException", `Schedule ${name} already exists.`, 409);
      if (method === "PUT" && !schedules.has(key))
        throw new AwsApiError("ResourceNotFoundException", `Schedule ${name} does not exist.`, 404);
      schedules.set(key, { ...parsed.data, Name: name });
      persist();
      arm(key);
      return { ScheduleArn: scheduleArn(parsed.data.GroupName, name) };
    }
    const key = keyOf(group ?? "default", name);
    const schedule = schedules.get(key);
    if (schedule === undefined)
      throw new AwsApiError("ResourceNotFoundException", `Schedule ${name} does not exist.`, 404);
    if (method === "GET") return describe(schedule);
    if (method === "DELETE") {
      schedules.delete(key);
      clearTimeout(timers.get(key));
      timers.delete(key);
      persist();
      return {};
    }
    throw new AwsApiError(
      "UnknownOperationException",
      `${method} /schedules/${name} is not implemented`,
      404,
    );
  };

  const server = http.createServer(async (req, res) => {
    const reply = (status: number, body: unknown, errorType?: string) => {
      res.writeHead(status, {
        "content-type": "application/json",
        ...(errorType === undefined ? {} : { "x-amzn-errortype": errorType }),
      });
      res.end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(Buffer.from(chunk));
      const url = new URL(req.url ?? "/", "http://localhost");
      const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
      if (!match?.[1])
        throw new AwsApiError("UnknownOperationException", `the local scheduler has no ${url.pathname}`, 404);
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = {};
      try {
        body = text === "" ? {} : parseJson(text);
      } catch {
        throw new AwsApiError("SerializationException", "The request body is not JSON");
      }
      const group = url.searchParams.get("groupName") ?? undefined;
      reply(200, await handle(req.method ?? "GET", decodeURIComponent(match[1]), group, body));
    } catch (error) {
      if (error instanceof AwsApiError)
        return reply(error.statusCode, { Message: error.message }, error.code);
      const message = error instanceof Error ? error.message : String(error);
      reply(500, { Message: message }, "InternalServerException");
    }
  });
  const running = await listen(server, options.port);
  for (const key of schedules.keys()) arm(key);

  return {
    url: running.url,
    pending: () => new Map([...schedules].map(([key, schedule]) => [key, dueAt(schedule)])),
    async close() {
      closed = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await running.close();
    },
  };
}

function keyOf(group: string, name: string): string {
  return `${group}/${name}`;
}

function dueAt(schedule: ScheduleBody): Date {
  const [, at] = AT_EXPRESSION.exec(schedule.ScheduleExpression) ?? [];
  return new Date(`${at}Z`);
}

function scheduleArn(group: string, name: string): string {
  const { region, account } = LOCAL_ENVIRONMENT;
  return `arn:aws:scheduler:${region}:${account}:schedule/${group}/${name}`;
}

function describe(schedule: StoredSchedule) {
  return {
    Arn: scheduleArn(schedule.GroupName, schedule.Name),
    Name: schedule.Name,
    GroupName: schedule.GroupName,
    ScheduleExpression: schedule.ScheduleExpression,
    ScheduleExpressionTimezone: schedule.ScheduleExpressionTimezone,
    ActionAfterCompletion: schedule.ActionAfterCompletion,
    FlexibleTimeWindow: schedule.FlexibleTimeWindow,
    State: "ENABLED",
    Target: schedule.Target,
  };
}

/** The kept schedules; a missing file is none, a damaged one is reported, not silently dropped. */
function loadSchedules(stateFile: string | undefined): Record<string, StoredSchedule> {
  if (stateFile === undefined) return {};
  let text: string;
  try {
    text = readFileSync(stateFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  let parsed: ReturnType<typeof StoredSchema.safeParse>;
  try {
    parsed = StoredSchema.safeParse(JSON.parse(text));
  } catch {
    throw new LocalSchedulesError(`${stateFile}: not JSON; remove it to drop the kept schedules`);
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new LocalSchedulesError(
      `${stateFile}: not the local scheduler's schedules (${issue?.path.join(".")}: ${issue?.message})`,
    );
  }
  return parsed.data;
}
