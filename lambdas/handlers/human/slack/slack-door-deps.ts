import type { Logger } from "@aws-lambda-powertools/logger";
import type { SecretSource } from "../../../adapters/secrets/slack-secrets";
import type { SlackResponder } from "../../../adapters/slack/slack-responder";
import type { ReplayGuard } from "../../../core/human/slack/replay-guard";
import type { PreviousSigningSecret } from "../../../core/human/slack/verify-signature";
import type { GoalStore } from "../../../core/ports/goal-store";
import type { HumanInputPublisher } from "../../../core/ports/human-input-publisher";

/** Everything the Slack routes use, injected: module scope builds it from the environment, tests from dynalite. */
export interface SlackDoorDeps {
  readonly goals: GoalStore;
  readonly publisher: HumanInputPublisher;
  readonly replayGuard: ReplayGuard;
  readonly signingSecret: SecretSource;
  /** The signing secret before the last rotation and until when it verifies; absent: none. */
  readonly previousSigningSecret?: () => Promise<PreviousSigningSecret | undefined>;
  /** Replaces the clicked message through `response_url`; absent locally, where no Slack exists. */
  readonly responder?: SlackResponder;
  /**
   * The tenant whose goals and approvals this Slack workspace may see and change from a channel
   * `channelTenants` does not name; others are answered as unknown (SLACK_TENANT_ID: the
   * configured tenant, else the deploying account).
   */
  readonly tenantId: string;
  /**
   * Channels bound to a tenant of their own (SLACK_CHANNEL_TENANTS): a request from one acts for
   * that tenant instead. Absent: none.
   */
  readonly channelTenants?: ReadonlyMap<string, string>;
  /** The Slack users who may act (SLACK_APPROVER_USER_IDS); anyone else is refused with a 403. */
  readonly approverUserIds: ReadonlySet<string>;
  readonly now: () => Date;
  readonly newRevisionId: () => string;
  readonly logger: Logger;
}
