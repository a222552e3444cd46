import type { Logger } from "@aws-lambda-powertools/logger";
import type { StartRun } from "../../adapters/step-functions/sfn-run-starter";
import type { Pattern } from "../../core/goal/goal-spec";
import type { CapacityGovernor } from "../../core/models/capacity/capacity-governor";
import type { ModelTiers } from "../../core/models/model-tiers";
import type { DeadlineSchedule } from "../../core/ports/deadline-schedule";
import type { GoalEventWaiter } from "../../core/ports/goal-event-waiter";
import type { GoalHistory } from "../../core/ports/goal-history";
import type { GoalStore } from "../../core/ports/goal-store";
import type { HumanInputPublisher } from "../../core/ports/human-input-publisher";
import type { McpCatalog } from "../../core/ports/mcp-catalog";
import type { ModelClient } from "../../core/ports/model-client";
import type { VersionDirectory } from "../../core/ports/run-control";
import type { RunHistory } from "../../core/ports/run-history";
import type { StepLog } from "../../core/ports/step-log";
import type { TenantStore } from "../../core/ports/tenant-store";
import type { Workspace } from "../../core/ports/workspace";
import type { TenantsSettings } from "../../core/tenants/tenants-settings";

/**
 * Everything the routes use, injected: the handler builds it once at module scope from the
 * environment, the tests from dynalite, a mocked SFNClient, a fixed clock and known ids.
 */
export interface GoalsApiDeps {
  readonly store: GoalStore;
  readonly startRun: StartRun;
  /** Pattern → state machine ARN, from STATE_MACHINE_ARNS. A pattern without one is not deployed. */
  readonly stateMachineArns: Readonly<Partial<Record<Pattern, string>>>;
  /**
   * The deployed versions: a new goal (or fork) is put on the version its pattern's live alias names,
   * and stored in that version's record schema. Absent (tests): goals name no version and start on
   * the live alias.
   */
  readonly versions?: VersionDirectory;
  readonly now: () => Date;
  /** A fresh random goal id, for a POST without an Idempotency-Key. */
  readonly newGoalId: () => string;
  /** Puts human inputs (revision, resume, cancel) on the goal event bus for the resume handler. */
  readonly publisher: HumanInputPublisher;
  /** A fresh random revision id for `POST /goals/{goalId}/revisions` and the directive. */
  readonly newRevisionId: () => string;
  readonly logger: Logger;
  /**
   * What a long poll (`waitSeconds`) waits on between two reads of the event log: the local
   * runtime's change feed, or polling with backoff when deployed. @default polling with backoff
   */
  readonly eventWaiter?: GoalEventWaiter;
  /** Reads runs' executions and histories (the runs routes); absent: those routes answer 503. */
  readonly runHistory?: RunHistory;
  /** Wakes a goal at its deadline while it waits or is paused; absent when the stack wires none. */
  readonly deadlines?: DeadlineSchedule;
  /**
   * The deployment's models: a GoalSpec's `models` must be on `allowedModelIds`, and `client` makes
   * the `select` call when no selector rule picks the pattern. Absent: no check, no select call.
   */
  readonly models?: {
    readonly client: ModelClient;
    /** Paces the select call within the models' quotas: without capacity now, no select call. */
    readonly capacity?: CapacityGovernor;
    readonly tiers: ModelTiers;
    readonly allowedModelIds: readonly string[];
  };
  /** Every tool a GoalSpec may grant; a name outside it is a 400 naming `tools.<index>`. Absent: not checked. */
  readonly toolNames?: readonly string[];
  /** The deployment's MCP servers, listed when a goal grants their tools. Absent: none configured. */
  readonly mcp?: McpCatalog;
  /**
   * A goal's history (steps, their states, checkpoints, fingerprints) and the step log and workspace
   * a fork copies it into: the steps, fork and replay routes. Absent: those routes answer 503.
   */
  readonly history?: {
    readonly history: GoalHistory;
    readonly stepLog: Pick<StepLog, "putStep">;
    readonly workspace: Pick<Workspace, "readVersion" | "writeFile" | "listFiles">;
  };
  /**
   * The tenants (TENANTS) and their items: who an IAM caller's tenant is, each tenant's limits on
   * starts and concurrent goals, `GET /tenants/me` and `POST /tenants/{id}/limits`. Absent: every IAM
   * caller is its account's tenant and no tenant limit applies (those routes answer 503).
   */
  readonly tenants?: {
    readonly settings: TenantsSettings;
    readonly store: TenantStore;
  };
}
