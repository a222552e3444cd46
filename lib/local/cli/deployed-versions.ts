import type { LambdaClient } from "@aws-sdk/client-lambda";
import {
  DeleteStateMachineVersionCommand,
  DescribeStateMachineAliasCommand,
  DescribeStateMachineCommand,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  ListStateMachineVersionsCommand,
  type SFNClient,
  UpdateStateMachineAliasCommand,
} from "@aws-sdk/client-sfn";
import { GoalLoopsError } from "../../../lambdas/core/goal/errors";
import { LIVE_ALIAS, parseVersionDescription } from "../../../lambdas/core/goal/runs-on";
import { deleteFunctionVersions, planFunctionVersionPrune } from "./function-versions";

/**
 * The deployed versions of a stack's loops, read and changed through the Step Functions API alone,
 * so the same code serves a deployed stack (the caller's credentials) and the local one (its Step
 * Functions endpoint): each deploy published a version of every pattern's state machine, described
 * with the deploy's label (versionDescription); the `live` alias of each names where new goals
 * start. A goal runs on a version while its run's execution, started on that version, is RUNNING
 * (a goal waiting for an approval included): ListExecutions on a version ARN lists exactly those.
 */

/** A rollback or prune that cannot be done as asked: nothing was changed. */
export class VersionCommandError extends GoalLoopsError {
  override readonly name = "VersionCommandError";
}

/** One pattern's state machine version of a deploy. */
export interface MachineVersion {
  readonly stateMachineArn: string;
  readonly versionArn: string;
  /** Step Functions' number of the version (`…:<n>`). */
  readonly number: number;
  /** Executions started on it that still run: its goals. */
  readonly running: number;
  readonly live: boolean;
}

/** One deploy: its label and the version it published of each pattern's state machine. */
export interface DeployedVersion {
  readonly label: string;
  readonly schema: number;
  /** The highest version number among its machines: deploys in the order they were made. */
  readonly order: number;
  readonly machines: readonly MachineVersion[];
  /** Goals running on it, over every pattern. */
  readonly running: number;
  /** Whether a `live` alias names it (new goals start on it). */
  readonly live: boolean;
}

/** The state machines of a deployed stack: those named `<stack>-<pattern>` (PatternLoop's names). */
export async function stackStateMachines(client: SFNClient, stackName: string): Promise<string[]> {
  const arns: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.send(new ListStateMachinesCommand({ nextToken }));
    for (const machine of page.stateMachines ?? []) {
      if (machine.name?.startsWith(`${stackName}-`)) arns.push(machine.stateMachineArn ?? "");
    }
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  return arns.filter((arn) => arn !== "");
}

/** Every deploy's versions, newest first, with the goals running on each. */
export async function listDeployedVersions(
  client: SFNClient,
  stateMachineArns: readonly string[],
): Promise<DeployedVersion[]> {
  const byLabel = new Map<string, { schema: number; machines: MachineVersion[] }>();
  for (const stateMachineArn of stateMachineArns) {
    const alias = await client.send(
      new DescribeStateMachineAliasCommand({ stateMachineAliasArn: `${stateMachineArn}:${LIVE_ALIAS}` }),
    );
    const liveArns = new Set((alias.routingConfiguration ?? []).map((route) => route.stateMachineVersionArn));
    for (const versionArn of await versionArnsOf(client, stateMachineArn)) {
      const described = await client.send(new DescribeStateMachineCommand({ stateMachineArn: versionArn }));
      // A version published by hand is no deploy's: not listed, never pruned.
      const parsed = parseVersionDescription(described.description);
      if (parsed === undefined) continue;
      const entry = byLabel.get(parsed.version) ?? { schema: parsed.schema, machines: [] };
      entry.machines.push({
        stateMachineArn,
        versionArn,
        number: Number(versionArn.slice(versionArn.lastIndexOf(":") + 1)),
        running: await runningOn(client, versionArn),
        live: liveArns.has(versionArn),
      });
      byLabel.set(parsed.version, entry);
    }
  }
  return [...byLabel.entries()]
    .map(([label, { schema, machines }]) => ({
      label,
      schema,
      order: Math.max(...machines.map((machine) => machine.number)),
      machines,
      running: machines.reduce((sum, machine) => sum + machine.running, 0),
      live: machines.some((machine) => machine.live),
    }))
    .sort((a, b) => b.order - a.order);
}

/**
 * Points every pattern's `live` alias at the deploy `to` (its label, or a version number as
 * Step Functions numbers it), else at the newest deploy older than the live one. Goals running on
 * the newer version go on on it; only where new goals start changes. Returns the deploy chosen.
 */
export async function rollBack(
  client: SFNClient,
  versions: readonly DeployedVersion[],
  stateMachineArns: readonly string[],
  to?: string,
): Promise<DeployedVersion> {
  const live = versions.find((version) => version.live);
  const target =
    to === undefined
      ? versions.find((version) => live !== undefined && version.order < live.order)
      : versions.find(
          (version) => version.label === to || version.machines.some((m) => String(m.number) === to),
        );
  if (target === undefined) {
    throw new VersionCommandError(
      to === undefined
        ? "No deployed version older than the live one is kept to roll back to"
        : `No deployed version ${to} (see goal-loops versions)`,
    );
  }
  const missing = stateMachineArns.filter((arn) => !target.machines.some((m) => m.stateMachineArn === arn));
  if (missing.length > 0) {
    throw new VersionCommandError(`Version ${target.label} has no version of ${missing.join(", ")}`);
  }
  for (const machine of target.machines) {
    await client.send(
      new UpdateStateMachineAliasCommand({
        stateMachineAliasArn: `${machine.stateMachineArn}:${LIVE_ALIAS}`,
        routingConfiguration: [{ stateMachineVersionArn: machine.versionArn, weight: 100 }],
      }),
    );
  }
  return target;
}

/** What `--prune` removed: the deploys, and the Lambda function versions only they named. */
export interface PruneResult {
  readonly removed: readonly DeployedVersion[];
  /** Deleted Lambda versions (a deployed stack's prune; the local stack keeps bundles per version folder). */
  readonly functionVersions: readonly string[];
  /** Why no Lambda version was deleted although pruned deploys named some (function-versions.ts). */
  readonly functionVersionsKeptBecause?: string;
}

/**
 * Deletes the versions no goal runs on or may run on again, keeping the live one and the `keep`
 * newest deploys; given a Lambda client (a deployed stack), also the Lambda function versions that
 * only the deleted versions named (function-versions.ts), after the state machine versions, so no
 * remaining version ever names a deleted function version.
 *
 * A goal whose run ended without the goal ending (paused, failed and retryable, parked for a
 * continue-as-new) starts its next run on the version it is pinned to, so a version with any
 * execution in Step Functions' history (90 days), not only a running one, is kept: deleting it would
 * leave such a goal unable to resume.
 */
export async function pruneVersions(
  client: SFNClient,
  versions: readonly DeployedVersion[],
  keep: number,
  options: {
    /** A deployed stack's Lambda client and name: its function versions are pruned too. */
    readonly lambda?: { readonly client: LambdaClient; readonly stackName: string };
    readonly stateMachineArns?: readonly string[];
  } = {},
): Promise<PruneResult> {
  const newest = new Set(versions.slice(0, keep).map((version) => version.label));
  const candidates = versions.filter(
    (version) => !version.live && version.running === 0 && !newest.has(version.label),
  );
  const removable: DeployedVersion[] = [];
  for (const version of candidates) {
    const ran = await Promise.all(version.machines.map((machine) => ranOn(client, machine.versionArn)));
    if (!ran.includes(true)) removable.push(version);
  }
  const pruned = removable.flatMap((version) => version.machines.map((machine) => machine.versionArn));
  const plan =
    options.lambda === undefined || pruned.length === 0
      ? undefined
      : await planFunctionVersionPrune(
          client,
          options.lambda.client,
          {
            pruned,
            kept: await remainingStateMachines(
              client,
              options.stateMachineArns ?? machinesOf(versions),
              pruned,
            ),
          },
          options.lambda.stackName,
        );
  for (const stateMachineVersionArn of pruned) {
    await client.send(new DeleteStateMachineVersionCommand({ stateMachineVersionArn }));
  }
  const functionVersions =
    plan === undefined || options.lambda === undefined
      ? []
      : await deleteFunctionVersions(options.lambda.client, plan.deletable);
  return {
    removed: removable,
    functionVersions,
    ...(plan?.blockedBy === undefined ? {} : { functionVersionsKeptBecause: plan.blockedBy }),
  };
}

/** Each state machine and every version of it that is not pruned: what stays to name functions. */
async function remainingStateMachines(
  client: SFNClient,
  stateMachineArns: readonly string[],
  pruned: readonly string[],
): Promise<string[]> {
  const remaining: string[] = [];
  for (const stateMachineArn of stateMachineArns) {
    remaining.push(stateMachineArn);
    for (const versionArn of await versionArnsOf(client, stateMachineArn)) {
      if (!pruned.includes(versionArn)) remaining.push(versionArn);
    }
  }
  return remaining;
}

function machinesOf(versions: readonly DeployedVersion[]): string[] {
  return [
    ...new Set(versions.flatMap((version) => version.machines.map((machine) => machine.stateMachineArn))),
  ];
}

/** `goal-loops versions`' table: one line per deploy, newest first. */
export function formatVersions(versions: readonly DeployedVersion[]): string[] {
  if (versions.length === 0) return ["No deployed versions (a stack deployed before versions existed?)"];
  return versions.map((version) => {
    const numbers = [...new Set(version.machines.map((machine) => machine.number))].join("/");
    const goals = `${version.running} goal${version.running === 1 ? "" : "s"} running`;
    return `${version.live ? "*" : " "} ${version.label}  (version ${numbers}, record schema ${version.schema})  ${goals}${version.live ? "  live" : ""}`;
  });
}

/** What `goal-loops versions --prune` says it did. */
export function formatPrune(result: PruneResult, keep: number): string[] {
  if (result.removed.length === 0) {
    return [`Nothing to prune (keeping the newest ${keep}, the live one and those goals run on)`];
  }
  const lines = [`Pruned ${result.removed.map((version) => version.label).join(", ")}`];
  if (result.functionVersions.length > 0) {
    lines.push(`Deleted ${result.functionVersions.length} Lambda function versions only they named:`);
    lines.push(...result.functionVersions.map((arn) => `  ${arn}`));
  }
  if (result.functionVersionsKeptBecause !== undefined) {
    lines.push(`Kept every Lambda function version: ${result.functionVersionsKeptBecause}`);
  }
  return lines;
}

async function versionArnsOf(client: SFNClient, stateMachineArn: string): Promise<string[]> {
  const arns: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.send(new ListStateMachineVersionsCommand({ stateMachineArn, nextToken }));
    for (const version of page.stateMachineVersions ?? []) arns.push(version.stateMachineVersionArn ?? "");
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  return arns.filter((arn) => arn !== "");
}

async function runningOn(client: SFNClient, versionArn: string): Promise<number> {
  let count = 0;
  let nextToken: string | undefined;
  do {
    const page = await client.send(
      new ListExecutionsCommand({ stateMachineArn: versionArn, statusFilter: "RUNNING", nextToken }),
    );
    count += page.executions?.length ?? 0;
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  return count;
}

/** Whether any execution, in any status, started on the version (Step Functions keeps 90 days of them). */
async function ranOn(client: SFNClient, versionArn: string): Promise<boolean> {
  const page = await client.send(new ListExecutionsCommand({ stateMachineArn: versionArn, maxResults: 1 }));
  return (page.executions?.length ?? 0) > 0;
}
