import * as z from "zod";

/**
 * A package-lock.json for a consumer project, made of this repository's own lock: the consumer's
 * dependencies resolve to exactly the versions (and integrities) this repository tests, and
 * `npm ci --offline` installs them from npm's cache, which `npm ci` of this repository filled.
 * (`npm install --offline` would need each package's registry metadata as well, which `npm ci`
 * never fetches; a lockfile needs only the tarballs.)
 */

const LockEntrySchema = z.looseObject({
  version: z.string().optional(),
  dependencies: z.record(z.string(), z.string()).optional(),
  optionalDependencies: z.record(z.string(), z.string()).optional(),
  peerDependencies: z.record(z.string(), z.string()).optional(),
  optional: z.boolean().optional(),
});
type LockEntry = z.infer<typeof LockEntrySchema>;

export const PackageLockSchema = z.looseObject({
  lockfileVersion: z.literal(3),
  packages: z.record(z.string(), LockEntrySchema),
});
export type PackageLock = z.infer<typeof PackageLockSchema>;

export interface ConsumerLockInput {
  /** This repository's package-lock.json. */
  readonly repositoryLock: PackageLock;
  /** The consumer's package.json name, dependencies and devDependencies (the tarball as `file:`). */
  readonly name: string;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  /** The packed goal-loops: its package.json, and its tarball as the consumer names it. */
  readonly goalLoops: { readonly manifest: Record<string, unknown>; readonly tarball: string };
}

/**
 * The lock: the root, goal-loops from its tarball, and every package it and the consumer's other
 * dependencies reach, each at the place this repository's lock has it (so each resolves its own
 * dependencies as it does here). Dependency flags (`dev`, `peer`) are dropped: what the consumer
 * installs is its own business; `optional` is kept (esbuild's binaries for other platforms).
 */
export function consumerLock(input: ConsumerLockInput): PackageLock {
  const source = input.repositoryLock.packages;
  const packages: Record<string, LockEntry> = {};
  const queue: { name: string; from: string; optional: boolean }[] = [];
  const need = (entry: LockEntry, from: string) => {
    for (const name of Object.keys(entry.dependencies ?? {})) queue.push({ name, from, optional: false });
    for (const name of Object.keys(entry.optionalDependencies ?? {}))
      queue.push({ name, from, optional: true });
    // Peers are resolved where the package sits; npm 7+ installs them, so the lock must hold them.
    for (const name of Object.keys(entry.peerDependencies ?? {})) queue.push({ name, from, optional: true });
  };
  const goalLoopsManifest = LockEntrySchema.parse(input.goalLoops.manifest);
  need({ dependencies: { ...input.dependencies, ...input.devDependencies } }, "");
  need(goalLoopsManifest, "node_modules/goal-loops");
  while (queue.length > 0) {
    const next = queue.shift();
    if (next === undefined) break;
    if (next.name === "goal-loops") continue;
    const location = resolveIn(source, next.name, next.from);
    if (location === undefined) {
      if (next.optional) continue;
      throw new Error(`${next.name} (needed by ${next.from || "the root"}) is not in this repository's lock`);
    }
    if (packages[location] !== undefined) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = source[location] ?? {};
    packages[location] = entry;
    need(entry, location);
  }
  const { name: _name, ...manifest } = input.goalLoops.manifest;
  return {
    name: input.name,
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": {
        name: input.name,
        version: "1.0.0",
        dependencies: { ...input.dependencies },
        devDependencies: { ...input.devDependencies },
      },
      "node_modules/goal-loops": {
        version: String(manifest.version),
        resolved: `file:${input.goalLoops.tarball}`,
        ...pick(manifest, ["license", "dependencies", "peerDependencies", "bin", "engines"]),
      },
      ...Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}

/** Where Node would find `name` from the package at `from`: its own node_modules, then each parent's. */
function resolveIn(packages: Record<string, LockEntry>, name: string, from: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (dir === "") return undefined;
    const cut = dir.lastIndexOf("/node_modules/");
    dir = cut === -1 ? "" : dir.slice(0, cut);
  }
}

function pick(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.flatMap((key) => (record[key] === undefined ? [] : [[key, record[key]]])));
}
