import type { HumanInputEvent } from "../human/human-input-events";

/**
 * Puts one human input on the stack's bus. Every door (API, Slack, email, CLI) publishes through it;
 * the resume handler is the only consumer. Delivery is at least once: consumers are idempotent.
 */
export interface HumanInputPublisher {
  publish(event: HumanInputEvent): Promise<void>;
}
