import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const PROJECT_DIR = resolve(import.meta.dirname, "../../..");
/** Where `goal-loops versions` and `goal-loops rollback` start: the commands' own file. */
const VERSION_COMMANDS = join(PROJECT_DIR, "lib", "local", "cli", "version-commands.ts");
/** The IAM service prefix of each SDK client the version commands may use. */
const IAM_PREFIX: Readonly<Record<string, string>> = {
  "@aws-sdk/client-sfn": "states",
  "@aws-sdk/client-lambda": "lambda",
};

/**
 * Every file the version commands load from their own folder (static and dynamic `./` imports,
 * not type-only ones), following each one's imports in turn.
 */
function versionCommandSources(): Map<string, string> {
  const sources = new Map<string, string>();
  const queue = [VERSION_COMMANDS];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (sources.has(file)) continue;
    const text = readFileSync(file, "utf8");
    sources.set(file, text);
    const local = /(?:^import (?!type )[^;]*? from |import\()"(\.\/[^"]+)"/gm;
    for (const match of text.matchAll(local)) queue.push(join(dirname(file), `${match[1]}.ts`));
  }
  return sources;
}

/** The IAM actions of the SDK commands the sources import (`DeleteFunctionCommand` → `lambda:DeleteFunction`). */
function actionsSent(sources: ReadonlyMap<string, string>): Set<string> {
  const actions = new Set<string>();
  for (const [file, text] of sources) {
    for (const match of text.matchAll(/^import \{([^}]*)\} from "(@aws-sdk\/client-[a-z-]+)";/gm)) {
      const prefix = IAM_PREFIX[match[2] ?? ""];
      if (prefix === undefined) throw new Error(`${file} uses ${match[2]}, which IAM_PREFIX does not map`);
      for (const name of (match[1] ?? "").split(",").map((part) => part.trim())) {
        const command = /^(\w+)Command$/.exec(name);
        if (command?.[1] !== undefined) actions.add(`${prefix}:${command[1]}`);
      }
    }
  }
  return actions;
}

/** The policy docs/deploy.md gives the deployer, and the actions of its `Versions…` statements. */
function documentedVersionActions(): Set<string> {
  const guide = readFileSync(join(PROJECT_DIR, "docs", "deploy.md"), "utf8");
  const section = guide.slice(guide.indexOf("## The deployer's permissions"));
  const json = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (json === undefined)
    throw new Error("docs/deploy.md has no JSON policy under “The deployer's permissions”");
  const policy = JSON.parse(json) as { Statement: { Sid: string; Action: string | string[] }[] };
  return new Set(
    policy.Statement.filter((statement) => statement.Sid.startsWith("Versions")).flatMap((statement) =>
      typeof statement.Action === "string" ? [statement.Action] : statement.Action,
    ),
  );
}

describe("the deployer policy of docs/deploy.md", () => {
  it("lists exactly the Step Functions and Lambda calls of goal-loops versions, --prune and rollback", () => {
    // Prepare
    const sources = versionCommandSources();

    // Act
    const sent = actionsSent(sources);
    const documented = documentedVersionActions();

    // Assess: the derivation found the files and commands it must (a broken regex finds none)
    expect([...sources.keys()].map((file) => file.slice(PROJECT_DIR.length + 1))).toEqual(
      expect.arrayContaining(["lib/local/cli/deployed-versions.ts", "lib/local/cli/function-versions.ts"]),
    );
    expect(sent).toContain("states:UpdateStateMachineAlias");
    expect(sent).toContain("lambda:DeleteFunction");
    expect([...documented].sort()).toEqual([...sent].sort());
  });
});
