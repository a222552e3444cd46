import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { CloudAssemblyError } from "../shared/errors";

/** What the local runtime reads of a project's cdk.json. */
const CdkJsonSchema = z.looseObject({
  app: z.string().optional(),
  output: z.string().optional(),
  watch: z
    .looseObject({
      include: z.union([z.string(), z.array(z.string())]).optional(),
      exclude: z.union([z.string(), z.array(z.string())]).optional(),
    })
    .optional(),
});

export interface CdkProject {
  /** cdk.json's `app`: the command that synthesizes it. */
  readonly app?: string;
  /** Where `cdk synth` writes the assembly (cdk.json's `output`, else cdk.out), absolute. */
  readonly outDir: string;
  /** cdk.json's `watch.include`: what the app is made of. @default ["**"] */
  readonly include: readonly string[];
  /** cdk.json's `watch.exclude`. */
  readonly exclude: readonly string[];
}

const list = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** A project's cdk.json, or its defaults when it has none. */
export function readCdkProject(projectDir: string): CdkProject {
  const file = path.join(projectDir, "cdk.json");
  if (!existsSync(file)) return { outDir: path.join(projectDir, "cdk.out"), include: ["**"], exclude: [] };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new CloudAssemblyError(
      `${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const parsed = CdkJsonSchema.safeParse(json);
  if (!parsed.success) throw new CloudAssemblyError(`${file} is malformed: ${parsed.error.message}`);
  const { app, output, watch } = parsed.data;
  const include = list(watch?.include);
  return {
    ...(app === undefined ? {} : { app }),
    outDir: path.resolve(projectDir, output ?? "cdk.out"),
    include: include.length === 0 ? ["**"] : include,
    exclude: list(watch?.exclude),
  };
}

/**
 * A glob of cdk.json's `watch` as a regular expression over `/`-separated project paths: `**`
 * spans folders, `*` and `?` stay within one name. A pattern that names a folder covers what is
 * inside it, as the CDK CLI's watcher treats it.
 */
export function globPattern(glob: string): RegExp {
  let source = "";
  const text = glob.replace(/^\.\//, "").replace(/\/+$/, "");
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] ?? "";
    if (char === "*" && text[index + 1] === "*") {
      const slash = text[index + 2] === "/";
      source += slash ? "(?:.*/)?" : ".*";
      index += slash ? 2 : 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}(?:/.*)?$`);
}

/**
 * The newest file the app is made of that changed after `since` (ms), or undefined: cdk.json's
 * `watch.include` minus its `watch.exclude`, and never node_modules, dot folders or the
 * assembly's own output folder (which the CDK CLI's watcher leaves out too).
 */
export function changedAppSource(
  projectDir: string,
  project: CdkProject,
  since: number,
  alsoExclude: readonly string[] = [],
): string | undefined {
  const include = project.include.map(globPattern);
  const exclude = [...project.exclude, ...alsoExclude, "node_modules"].map(globPattern);
  const outDir = path.relative(projectDir, project.outDir).split(path.sep).join("/");
  // Only folders an include could reach are walked (`bin/**` never reads test/).
  const leads = project.include.map(literalLead);
  const mayHold = (dir: string) =>
    leads.some((lead) => lead === "" || `${lead}/`.startsWith(`${dir}/`) || `${dir}/`.startsWith(`${lead}/`));
  const walk = (dir: string): string | undefined => {
    for (const entry of readdirSync(path.join(projectDir, dir), { withFileTypes: true })) {
      const relative = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.name.startsWith(".") || relative === outDir || exclude.some((glob) => glob.test(relative))) {
        continue;
      }
      if (entry.isDirectory()) {
        if (!mayHold(relative)) continue;
        const found = walk(relative);
        if (found !== undefined) return found;
      } else if (
        entry.isFile() &&
        include.some((glob) => glob.test(relative)) &&
        statSync(path.join(projectDir, relative)).mtimeMs > since
      ) {
        return relative;
      }
    }
    return undefined;
  };
  return walk("");
}

/** The folders a glob names before its first wildcard: `lib` for `lib/**`, nothing for `**`. */
function literalLead(glob: string): string {
  const segments = glob.replace(/^\.\//, "").split("/");
  const literal: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (/[*?]/.test(segment)) break;
    literal.push(segment);
  }
  return literal.join("/");
}
