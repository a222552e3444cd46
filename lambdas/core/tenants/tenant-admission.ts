import { FIRST_TASK } from "../goal/create-goal";
import type { GoalChange } from "../goal/goal-change";
import { fail, resumeFromWait, waitFor } from "../goal/goal-lifecycle";
import type { GoalRecord } from "../goal/goal-record";
import { isFinal } from "../goal/goal-status";
import type { Clock } from "../ports/clock";
import type { GoalStore, VersionedGoal } from "../ports/goal-store";
import type { TenantStore } from "../ports/tenant-store";
import type { TenantLimits } from "./tenant-limits";

/**
 * Concurrent goals per tenant (tenants.limits concurrentGoals, DESIGN §4 `waiting` "for its
 * tenant's turn"). A goal posted while its tenant's slots are all held is stored `waiting` with
 * `waitingFor: {kind: "capacity", reason}` and no run; it is never dropped. Slots are a set of goal
 * ids in the tenant's item (TenantStore), taken by one conditional write, so two posts never both
 * take the last one. When a slot holder ends, its `Goal Ended` event frees the slot and the
 * tenant's oldest waiting goal is admitted (`admitWaitingGoals`): the goal turns `running` and its
 * first run starts. Sub-goals take no slot (their parent holds one for the whole tree).
 */

/** The event a capacity wait names in its resume condition: a slot of its tenant was freed. */
export const TENANT_CAPACITY_FREED = "Tenant Capacity Freed";

/** The id a capacity wait puts where other waits put an approval id. */
export function capacityWaitId(tenantId: string): string {
  return `capacity:${tenantId}`;
}

export function isWaitingForTenantCapacity(record: GoalRecord): boolean {
  return record.status === "waiting" && record.waitingFor?.kind === "capacity";
}

/** A goal intake made `running` parks until its tenant has a free slot (no run was started). */
export function waitForTenantCapacity(record: GoalRecord, reason: string, now: Date): GoalChange {
  const approvalId = capacityWaitId(record.tenantId);
  return waitFor(
    record,
    { kind: "capacity", approvalId, reason },
    { eventType: TENANT_CAPACITY_FREED, approvalId, revision: record.revision },
    now,
  );
}

/** The waiting goal's turn came: it runs, holding a slot, from its first task. */
function admitted(record: GoalRecord, holdsSlot: boolean, now: Date): GoalChange | undefined {
  const approvalId = capacityWaitId(record.tenantId);
  const woken = resumeFromWait(record, { eventType: TENANT_CAPACITY_FREED, approvalId }, FIRST_TASK, now);
  if (!woken.woke) return undefined;
  return { record: { ...woken.record, concurrencySlot: holdsSlot }, events: woken.events };
}

/** Why a goal waits for its tenant, as its snapshot shows it. */
export function capacityReason(tenantId: string, limit: number): string {
  return `tenant '${tenantId}' runs ${limit} goal(s) at once (tenants.limits concurrentGoals): this goal starts when one of them ends`;
}

export interface AdmissionPorts {
  readonly goals: Pick<GoalStore, "getGoal" | "commit" | "listGoals">;
  readonly tenants: Pick<TenantStore, "slotHolders" | "takeSlot" | "releaseSlots">;
  /** The tenant's limits in effect now (config, then what an operator set). */
  readonly limits: (tenantId: string) => Promise<TenantLimits>;
  /** Starts the goal's first run (its run id, on its pattern's state machine). */
  readonly startRun: (record: VersionedGoal) => Promise<void>;
  readonly now: Clock;
}

/** How many goals one admission pass starts at most; the next freed slot goes on. */
const MAX_ADMITTED_PER_PASS = 25;
/** Waiting goals looked at per page of the tenant's `waiting` listing. */
const PAGE = 100;

/**
 * A slot for `goalId`, freeing first the slots of holders that ended without being heard of (a
 * lost `Goal Ended` event, a goal deleted by retention): slots heal themselves when they run out.
 */
export async function takeSlotHealing(
  ports: Pick<AdmissionPorts, "goals" | "tenants">,
  tenantId: string,
  goalId: string,
  limit: number,
): Promise<boolean> {
  if (await ports.tenants.takeSlot(tenantId, goalId, limit)) return true;
  const holders = await ports.tenants.slotHolders(tenantId);
  const found = await Promise.all(holders.map((holder) => ports.goals.getGoal(holder)));
  const gone = holders.filter((_, index) => {
    const record = found[index]?.record;
    return record === undefined || isFinal(record.status) || record.tenantId !== tenantId;
  });
  if (gone.length === 0) return false;
  await ports.tenants.releaseSlots(tenantId, gone);
  return ports.tenants.takeSlot(tenantId, goalId, limit);
}

/** The tenant's goals waiting for capacity, oldest first (the status index sorts by creation). */
async function waitingForCapacity(
  ports: Pick<AdmissionPorts, "goals">,
  tenantId: string,
): Promise<GoalRecord[]> {
  const found: GoalRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await ports.goals.listGoals({
      tenantId,
      status: "waiting",
      limit: PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    found.push(...page.items.filter(isWaitingForTenantCapacity));
    cursor = page.cursor;
  } while (cursor !== undefined && found.length < MAX_ADMITTED_PER_PASS);
  return found;
}

/** Whether the tenant has goals waiting for a slot (a new goal queues behind them). */
export async function hasWaitingGoals(
  ports: Pick<AdmissionPorts, "goals">,
  tenantId: string,
): Promise<boolean> {
  return (await waitingForCapacity(ports, tenantId)).length > 0;
}

/**
 * Admits the tenant's waiting goals in the order they were posted while slots are free: each takes
 * a slot (or, with no limit any more, none), turns `running` under its version, and its first run
 * starts. A goal changed meanwhile (cancelled, already admitted by another pass) gives its slot
 * back and the next one is tried. Safe to run twice at once: a slot and a transition are each one
 * conditional write. Answers the goals it started.
 */
export async function admitWaitingGoals(ports: AdmissionPorts, tenantId: string): Promise<string[]> {
  const started: string[] = [];
  const waiting = await waitingForCapacity(ports, tenantId);
  for (const candidate of waiting) {
    if (started.length >= MAX_ADMITTED_PER_PASS) break;
    const limit = (await ports.limits(tenantId)).concurrentGoals;
    if (limit !== undefined && !(await takeSlotHealing(ports, tenantId, candidate.goalId, limit))) break;
    const admittedGoal = await admit(ports, candidate.goalId, limit !== undefined);
    if (admittedGoal === undefined) {
      if (limit !== undefined) await ports.tenants.releaseSlots(tenantId, [candidate.goalId]);
      continue;
    }
    try {
      await ports.startRun(admittedGoal);
      started.push(candidate.goalId);
    } catch (error) {
      await markStartFailed(ports, admittedGoal, error);
    }
  }
  return started;
}

/**
 * The admitted goal's run did not start (Step Functions refused or was unreachable): the goal is
 * marked `failed` (infrastructure, redrivable: a retry starts its run) instead of sitting `running`
 * with no execution behind it. It keeps its slot, as any failed goal does until it ends.
 */
async function markStartFailed(ports: AdmissionPorts, goal: VersionedGoal, error: unknown): Promise<void> {
  const name = error instanceof Error ? error.name : "Error";
  const message = error instanceof Error ? error.message : String(error);
  const failed = fail(goal.record, { kind: "infrastructure", detail: name, message }, ports.now());
  try {
    await ports.goals.commit(failed.record, goal.version, failed.events);
  } catch (commitError) {
    // A step that loaded the goal meanwhile owns it: its run did start after all.
    if (!(commitError instanceof Error && commitError.name === "ConcurrentModificationError"))
      throw commitError;
  }
}

/** Commits the waiting goal's admission under its version; undefined when it no longer waits. */
async function admit(
  ports: AdmissionPorts,
  goalId: string,
  holdsSlot: boolean,
): Promise<VersionedGoal | undefined> {
  const current = await ports.goals.getGoal(goalId);
  if (current === undefined || !isWaitingForTenantCapacity(current.record)) return undefined;
  const change = admitted(current.record, holdsSlot, ports.now());
  if (change === undefined) return undefined;
  try {
    return await ports.goals.commit(change.record, current.version, change.events);
  } catch (error) {
    // Another writer got in first (a cancel, another pass): the goal is theirs now.
    if (error instanceof Error && error.name === "ConcurrentModificationError") return undefined;
    throw error;
  }
}

/**
 * A goal a user posted (or forked), as intake made it (`running`, no run started yet), under its
 * tenant's concurrency limit: it takes a free slot and runs, or waits for its turn. With goals
 * already waiting it waits behind them, whatever the slots say, so goals start in the order they
 * were posted. Without a limit nothing changes. Call `admitWaitingGoals` after storing a waiting
 * goal: a slot freed meanwhile then goes to it instead of being missed.
 */
export async function admitNewGoal(
  ports: Pick<AdmissionPorts, "goals" | "tenants" | "limits" | "now">,
  change: GoalChange,
): Promise<GoalChange> {
  const { record } = change;
  const limit = (await ports.limits(record.tenantId)).concurrentGoals;
  if (limit === undefined || record.spec.parentGoalId !== undefined) return change;
  const queued = await hasWaitingGoals(ports, record.tenantId);
  if (!queued && (await takeSlotHealing(ports, record.tenantId, record.goalId, limit))) {
    return { record: { ...record, concurrencySlot: true }, events: change.events };
  }
  const waiting = waitForTenantCapacity(record, capacityReason(record.tenantId, limit), ports.now());
  return { record: waiting.record, events: [...change.events, ...waiting.events] };
}
