import { DEFAULT_LIMITS_KEY, TenantIdSchema } from "../../tenants/tenant-limits";
import * as z from "../../zod";

/** Slack channel ids: `C…` (public), `G…` (private), `D…` (direct message). */
export const SLACK_CHANNEL_ID_PATTERN = /^[CGD][A-Z0-9]{2,31}$/;

/** The variable the Slack door reads `approvals.slack.channelTenants` from, as JSON. */
export const SLACK_CHANNEL_TENANTS_ENV = "SLACK_CHANNEL_TENANTS";

/** At most this many channels are mapped: the map travels in one Lambda environment variable. */
export const MAX_SLACK_CHANNEL_TENANTS = 200;

/**
 * `approvals.slack.channelTenants`: Slack channel id → the tenant whose goals and approvals a click
 * or `/goal` command from that channel acts on. Channels not listed act for the workspace's tenant.
 */
export const SlackChannelTenantsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .record(
      z.string().check(z.regex(SLACK_CHANNEL_ID_PATTERN, "must be a Slack channel id such as C0123ABCD")),
      TenantIdSchema.check(
        z.refine((tenant) => tenant !== DEFAULT_LIMITS_KEY, {
          error: `'${DEFAULT_LIMITS_KEY}' names the default limits, not a tenant`,
        }),
      ),
    )
    .check(
      z.refine((map) => Object.keys(map).length <= MAX_SLACK_CHANNEL_TENANTS, {
        error: `must map at most ${MAX_SLACK_CHANNEL_TENANTS} channels`,
      }),
    ),
);
export type SlackChannelTenants = z.output<typeof SlackChannelTenantsSchema>;

/** Who the Slack door acts for: the workspace's tenant, and the tenants of mapped channels. */
export interface SlackTenancy {
  /** The tenant of every channel the map does not name (`approvals.slack.tenantId`). */
  readonly workspaceTenantId: string;
  readonly channelTenants: ReadonlyMap<string, string>;
}

/**
 * The tenant a Slack request acts for: its channel's, when the map names the channel, else the
 * workspace's. A request that names no channel (a click on a message outside any conversation)
 * acts for the workspace's tenant.
 */
export function slackTenantOf(tenancy: SlackTenancy, channelId: string | undefined): string {
  return (
    (channelId === undefined ? undefined : tenancy.channelTenants.get(channelId)) ?? tenancy.workspaceTenantId
  );
}
