import { randomUUID } from "node:crypto";
import * as z from "zod";
import { type AwsJsonOperation, startAwsJsonServer } from "../shared/aws-json-server";
import {
  type EventBusSpec,
  type EventRuleSpec,
  type JsonObject,
  type JsonValue,
  LOCAL_ENVIRONMENT,
} from "../shared/cloud-assembly-model";
import { AwsApiError } from "../shared/errors";
import { isJsonObject, parseJson } from "../shared/json";
import type { RunningServer } from "../shared/listen";
import { checkEventPattern, matchesEventPattern } from "./event-pattern";
import { targetInput } from "./event-target-input";

/** One delivery of an event to a rule's target, as recorded for tests and diagnostics. */
export interface EventDelivery {
  readonly eventId: string;
  readonly ruleName: string;
  readonly targetId: string;
  readonly targetArn: string;
  status: "pending" | "delivered" | "failed";
  error?: string;
}

export interface EventBridgeEndpoint {
  readonly url: string;
  /** Every delivery so far, in order. */
  deliveries(): readonly EventDelivery[];
  /** Resolves when no delivery is in flight. */
  idle(): Promise<void>;
  /** PutEvents from inside the stack (the local scheduler): one entry, rejected with its error code. */
  put(entry: PutEventsEntry): Promise<void>;
  close(): Promise<void>;
}

export interface EventBridgeEndpointOptions {
  readonly eventBuses: readonly EventBusSpec[];
  readonly rules: readonly EventRuleSpec[];
  /** Invokes a Lambda target (asynchronously in AWS: the endpoint does not wait for it). */
  readonly invokeFunction: (functionArn: string, event: JsonValue) => Promise<unknown>;
  readonly startExecution: (stateMachineArn: string, input: JsonValue) => unknown;
  readonly port?: number;
}

const PutEventsEntrySchema = z.looseObject({
  Source: z.string().optional(),
  DetailType: z.string().optional(),
  Detail: z.string().optional(),
  EventBusName: z.string().optional(),
  Resources: z.array(z.string()).optional(),
  Time: z.union([z.number(), z.string()]).optional(),
});
export type PutEventsEntry = z.infer<typeof PutEventsEntrySchema>;
const PutEventsSchema = z.object({ Entries: z.array(PutEventsEntrySchema).min(1).max(10) });

/**
 * EventBridge PutEvents (JSON 1.1) over the template's rules: each entry becomes an event, is
 * matched against the enabled rules of its bus, and is delivered to their Lambda and state machine
 * targets. Deliveries are recorded; a failed one is kept with its error (AWS would retry, then
 * send it to the target's dead-letter queue).
 */
export async function startEventBridgeEndpoint(
  options: EventBridgeEndpointOptions,
): Promise<EventBridgeEndpoint> {
  for (const rule of options.rules)
    checkEventPattern(rule.eventPattern, `${rule.stackName}/${rule.logicalId}`);
  const buses = new Set(["default", ...options.eventBuses.map((b) => b.name)]);
  const deliveries: EventDelivery[] = [];
  const inFlight = new Set<Promise<void>>();

  const deliver = (event: JsonObject, eventBusName: string) => {
    for (const rule of options.rules) {
      if (
        !rule.enabled ||
        rule.eventBusName !== eventBusName ||
        !matchesEventPattern(rule.eventPattern, event)
      )
        continue;
      for (const target of rule.targets) {
        const delivery: EventDelivery = {
          eventId: String(event.id),
          ruleName: rule.name,
          targetId: target.id,
          targetArn: target.arn,
          status: "pending",
        };
        deliveries.push(delivery);
        const attempt = (async () => {
          try {
            const input = targetInput(target, event, rule.name);
            if (target.kind === "lambda") await options.invokeFunction(target.arn, input);
            else if (target.kind === "state-machine") options.startExecution(target.arn, input);
            else
              throw new Error(
                `targets like ${target.arn} are not supported locally (Lambda and state machines are)`,
              );
            delivery.status = "delivered";
          } catch (error) {
            delivery.status = "failed";
            delivery.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
          }
        })();
        inFlight.add(attempt);
        void attempt.finally(() => inFlight.delete(attempt));
      }
    }
  };

  const putEvents = (request: unknown) => {
    const parsed = PutEventsSchema.safeParse(request);
    if (!parsed.success)
      throw new AwsApiError(
        "ValidationException",
        `PutEvents: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      );
    const results = parsed.data.Entries.map((entry): JsonObject => {
      const busName = (entry.EventBusName ?? "default").replace(/^arn:.*:event-bus\//, "");
      if (entry.Source === undefined || entry.DetailType === undefined || entry.Detail === undefined) {
        return {
          ErrorCode: "InvalidArgument",
          ErrorMessage: "Parameters Source, DetailType and Detail are required",
        };
      }
      if (!buses.has(busName)) {
        return {
          ErrorCode: "ResourceNotFoundException",
          ErrorMessage: `Event bus ${busName} does not exist.`,
        };
      }
      let detail: JsonValue;
      try {
        detail = parseJson(entry.Detail);
      } catch {
        return { ErrorCode: "MalformedDetail", ErrorMessage: "Detail is malformed." };
      }
      if (!isJsonObject(detail))
        return { ErrorCode: "MalformedDetail", ErrorMessage: "Detail must be a JSON object." };
      const id = randomUUID();
      const time =
        entry.Time === undefined
          ? new Date()
          : new Date(typeof entry.Time === "number" ? entry.Time * 1000 : entry.Time);
      deliver(
        {
          version: "0",
          id,
          "detail-type": entry.DetailType,
          source: entry.Source,
          account: LOCAL_ENVIRONMENT.account,
          time: time.toISOString().replace(/\.\d{3}Z$/, "Z"),
          region: LOCAL_ENVIRONMENT.region,
          resources: entry.Resources ?? [],
          detail,
        },
        busName,
      );
      return { EventId: id };
    });
    return { FailedEntryCount: results.filter((r) => r.ErrorCode !== undefined).length, Entries: results };
  };
  const operations: Record<string, AwsJsonOperation> = { PutEvents: putEvents };
  const running: RunningServer = await startAwsJsonServer({
    targetPrefix: "AWSEvents",
    jsonVersion: "1.1",
    operations,
    port: options.port,
  });
  return {
    url: running.url,
    deliveries: () => [...deliveries],
    async put(entry) {
      const [result] = putEvents({ Entries: [entry] }).Entries;
      if (result?.ErrorCode !== undefined)
        throw new AwsApiError(String(result.ErrorCode), String(result.ErrorMessage));
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    close: running.close,
  };
}
