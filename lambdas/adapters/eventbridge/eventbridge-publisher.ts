import { type EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { GoalLoopsError } from "../../core/goal/errors";
import { HUMAN_INPUT_SOURCE, type HumanInputEvent } from "../../core/human/human-input-events";
import type { HumanInputPublisher } from "../../core/ports/human-input-publisher";

/**
 * EventBridge did not accept the event (a failed entry, throttling, a 5xx). Publishing again may
 * succeed; the decision it carries is already stored, and the resume handler is idempotent.
 */
export class HumanInputPublishError extends GoalLoopsError {
  override readonly name = "HumanInputPublishError";
  override readonly retryable = true;
}

/** Publishes human inputs with PutEvents on the bus named by `busName` (env `GOAL_EVENT_BUS_NAME`). */
export class EventBridgePublisher implements HumanInputPublisher {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {}

  async publish(event: HumanInputEvent): Promise<void> {
    const entry = {
      EventBusName: this.busName,
      Source: HUMAN_INPUT_SOURCE,
      DetailType: event.detailType,
      Detail: JSON.stringify(event.detail),
    };
    const answer = await this.client
      .send(new PutEventsCommand({ Entries: [entry] }))
      .catch((error: unknown) => {
        throw new HumanInputPublishError(`PutEvents of '${event.detailType}' failed`, { cause: error });
      });
    if ((answer.FailedEntryCount ?? 0) > 0) {
      const failed = answer.Entries?.find((item) => item.ErrorCode !== undefined);
      throw new HumanInputPublishError(
        `EventBridge refused '${event.detailType}': ${failed?.ErrorCode ?? "unknown"} ${failed?.ErrorMessage ?? ""}`.trim(),
      );
    }
  }
}
