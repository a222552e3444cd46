import { existsSync, rmSync } from "node:fs";
import type { CloudAssemblyModel, FunctionSpec, StateMachineVersion } from "../shared/cloud-assembly-model";
import { loadCloudAssembly } from "./cdk-out";
import {
  keepVersion,
  keptAssemblyDir,
  publishedVersionOf,
  readKeptVersions,
  rollBack,
  writeKeptVersions,
} from "./kept-versions";

export interface VersionedAssemblyOptions {
  readonly outDir: string;
  readonly stack?: string;
  /** The state folder that keeps versions across restarts; none (in memory) runs the newest only. */
  readonly stateDir?: string;
  /** Points new goals back (`--rollback`): at version `to`, else at the one before `live`. */
  readonly rollback?: { readonly to?: number };
  readonly log?: (line: string) => void;
}

/** The newest synth and every version kept beside it, as the local runtime runs them. */
export interface VersionedAssembly {
  /** The newest synth (its functions are `$LATEST`); its tables, buses and API are the stack's. */
  readonly model: CloudAssemblyModel;
  /** The number the newest synth is kept under (1 when nothing is kept). */
  readonly current: number;
  /** Every kept version's functions, each with its version number (`…:function:<name>:<n>`). */
  readonly functionVersions: readonly FunctionSpec[];
  /** Every kept version's state machine versions (`…:stateMachine:<name>:<n>`). */
  readonly stateMachineVersions: readonly StateMachineVersion[];
  /** Each state machine's `live` alias → the version it routes to. */
  readonly aliases: ReadonlyMap<string, string>;
  /** Keeps an alias's new target in the state folder (a rollback through the Step Functions API). */
  readonly onAliasUpdated: (aliasArn: string, versionArn: string) => void;
  /**
   * Forgets a deleted version (`goal-loops versions --prune`): once no state machine version of a
   * kept number is left, its copy of cdk.out goes too.
   */
  readonly onVersionDeleted: (versionArn: string) => void;
}

/**
 * Reads `outDir` and the versions the state folder keeps: a synth with a new deploy label is kept
 * as the next version and becomes `live` (as a deploy), goals pinned to an older version find its
 * definitions and bundles, and a rollback points `live` back. An assembly that publishes no versions
 * (an app without GoalLoops) runs as it is.
 */
export function loadVersionedAssembly(options: VersionedAssemblyOptions): VersionedAssembly {
  const { outDir, stateDir, log = () => undefined } = options;
  const stack = options.stack === undefined ? {} : { stack: options.stack };
  const published = publishedVersionOf(outDir, options.stack);
  if (published === undefined || stateDir === undefined) {
    const model = loadCloudAssembly(outDir, stack);
    const versions = published === undefined ? [] : [{ model, number: 1, keptAt: new Date() }];
    return assemble(
      model,
      1,
      versions,
      {},
      { onAliasUpdated: () => undefined, onVersionDeleted: () => undefined },
    );
  }
  const names = loadCloudAssembly(outDir, stack).stateMachines.map((machine) => machine.name);
  const { current } = keepVersion(stateDir, outDir, published, names);
  if (options.rollback !== undefined) {
    const to = rollBack(stateDir, names, options.rollback.to);
    log(`rolled back: new goals start on version ${to}`);
  }
  const kept = readKeptVersions(stateDir);
  const model = loadCloudAssembly(outDir, { ...stack, version: current });
  const versions = kept.versions.flatMap((version) => {
    const keptAt = new Date(version.keptAt);
    if (version.number === current) return [{ model, number: current, keptAt }];
    const dir = keptAssemblyDir(stateDir, version.number);
    if (!existsSync(dir)) {
      log(`version ${version.number} (${version.label}) is no longer kept in ${dir}: its goals cannot run`);
      return [];
    }
    return [
      {
        model: loadCloudAssembly(dir, { ...stack, version: version.number }),
        number: version.number,
        keptAt,
      },
    ];
  });
  const persist = (aliasArn: string, versionArn: string) => {
    const name = model.stateMachines.find((machine) => machine.published?.aliases.includes(aliasArn))?.name;
    const number = versionNumberOf(versionArn);
    if (name === undefined || !Number.isInteger(number)) return;
    const now = readKeptVersions(stateDir);
    writeKeptVersions(stateDir, { ...now, live: { ...now.live, [name]: number } });
  };
  const remaining = new Set<string>();
  const forget = (versionArn: string) => {
    remaining.delete(versionArn);
    const number = versionNumberOf(versionArn);
    if ([...remaining].some((arn) => versionNumberOf(arn) === number)) return;
    const now = readKeptVersions(stateDir);
    writeKeptVersions(stateDir, {
      ...now,
      versions: now.versions.filter((version) => version.number !== number),
    });
    rmSync(keptAssemblyDir(stateDir, number), { recursive: true, force: true });
    log(`version ${number} is pruned`);
  };
  const assembled = assemble(model, current, versions, kept.live, {
    onAliasUpdated: persist,
    onVersionDeleted: forget,
  });
  for (const version of assembled.stateMachineVersions) remaining.add(version.arn);
  return assembled;
}

function assemble(
  model: CloudAssemblyModel,
  current: number,
  versions: readonly { readonly model: CloudAssemblyModel; readonly number: number; readonly keptAt: Date }[],
  live: Readonly<Record<string, number>>,
  callbacks: Pick<VersionedAssembly, "onAliasUpdated" | "onVersionDeleted">,
): VersionedAssembly {
  const stateMachineVersions = versions.flatMap(({ model: kept, keptAt }) =>
    kept.stateMachines.flatMap((spec) =>
      spec.published === undefined
        ? []
        : [{ arn: spec.published.arn, description: spec.published.description, spec, creationDate: keptAt }],
    ),
  );
  const aliases = new Map<string, string>();
  for (const machine of model.stateMachines) {
    if (machine.published === undefined) continue;
    const wanted = `${machine.arn}:${live[machine.name] ?? current}`;
    const target = stateMachineVersions.some((version) => version.arn === wanted)
      ? wanted
      : machine.published.arn;
    for (const aliasArn of machine.published.aliases) aliases.set(aliasArn, target);
  }
  return {
    model,
    current,
    functionVersions: versions.flatMap(({ model: kept, number }) =>
      kept.functions.map((fn) => ({ ...fn, version: String(number) })),
    ),
    stateMachineVersions,
    aliases,
    ...callbacks,
  };
}

/** `…:stateMachine:<name>:3` → 3. */
function versionNumberOf(versionArn: string): number {
  return Number(versionArn.slice(versionArn.lastIndexOf(":") + 1));
}
