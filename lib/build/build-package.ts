import { buildCli } from "./build-cli";
import { buildHandlerBundles } from "./build-handlers";
import { buildLibrary } from "./build-library";

export interface BuildPackageOptions {
  readonly projectDir: string;
  /** Which parts. @default all of them */
  readonly parts?: readonly BuildPart[];
  /** Rebuild even what is fresh. @default false */
  readonly force?: boolean;
  /** @default console.log */
  readonly log?: (line: string) => void;
}

export const BUILD_PARTS = ["handlers", "library", "cli"] as const;
export type BuildPart = (typeof BUILD_PARTS)[number];

/**
 * Everything `npm pack` ships that is built: the Lambda handler bundles, the construct library and
 * its declarations, the CLI and the console. Each part is built only when missing or older than
 * one of its inputs, all at once.
 */
export async function buildPackage(options: BuildPackageOptions): Promise<void> {
  const { parts = BUILD_PARTS, ...rest } = options;
  await Promise.all([
    parts.includes("handlers") ? buildHandlerBundles(rest) : undefined,
    parts.includes("library") ? buildLibrary(rest) : undefined,
    parts.includes("cli") ? buildCli(rest) : undefined,
  ]);
}
