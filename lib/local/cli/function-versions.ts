import {
  DeleteFunctionCommand,
  type FunctionConfiguration,
  type LambdaClient,
  ListAliasesCommand,
  ListTagsCommand,
  ListVersionsByFunctionCommand,
} from "@aws-sdk/client-lambda";
import { DescribeStateMachineCommand, type SFNClient } from "@aws-sdk/client-sfn";

/**
 * The Lambda function versions a deploy published, cleaned up with the state machine versions that
 * named them (`goal-loops versions --prune --stack`). Every deploy publishes a version of every
 * function (Lambda keeps them all: 75 GB of code per region), and a state machine version's steps
 * name those versions by qualified ARN; a step function's environment may name more (a user tool's
 * version, the MCP gateway's), which the step invokes. A Lambda version goes only when a pruned
 * state machine version named it, directly or through such an environment, and nothing that stays
 * names it: no remaining state machine version, not the state machine itself (new executions of
 * its unqualified ARN), no alias, no remaining function version's environment. `$LATEST` is no
 * numbered version and is never deleted, and only the stack's own functions are touched (the tag
 * CloudFormation puts on what it creates, `aws:cloudformation:stack-name`): a user tool given as a
 * qualified `functionArn` of the user's own function is named by the definitions too, and is not ours.
 */

/** The tag CloudFormation gives every resource of a stack it creates: the stack's name. */
const STACK_NAME_TAG = "aws:cloudformation:stack-name";

/** `arn:<partition>:lambda:<region>:<account>:function:<name>:<version>`: a numbered version's ARN. */
const FUNCTION_VERSION_ARN = /arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}:\d+/g;

/** The numbered function versions a text (a definition, an environment) names. */
export function functionVersionsNamedIn(text: string): Set<string> {
  return new Set(text.match(FUNCTION_VERSION_ARN) ?? []);
}

/** `…:function:<name>:7` → `…:function:<name>` and `7`. */
function splitVersionArn(versionArn: string): { readonly functionArn: string; readonly version: string } {
  const at = versionArn.lastIndexOf(":");
  return { functionArn: versionArn.slice(0, at), version: versionArn.slice(at + 1) };
}

export interface FunctionVersionPlan {
  /** The versions to delete, in a stable order. */
  readonly deletable: readonly string[];
  /**
   * Why nothing is deleted when that is so: a function version's environment could not be read,
   * so what it names is unknown (an undeletable key, say); keeping everything is the safe answer.
   */
  readonly blockedBy?: string;
}

/**
 * The Lambda versions the state machine versions `pruned` name and nothing in `kept` (state machine
 * versions that stay, and the state machines themselves) names. Call it before the state machine
 * versions are deleted: it reads their definitions.
 */
export async function planFunctionVersionPrune(
  sfn: SFNClient,
  lambda: LambdaClient,
  machines: { readonly pruned: readonly string[]; readonly kept: readonly string[] },
  stackName: string,
): Promise<FunctionVersionPlan> {
  const named = async (arns: readonly string[]) => {
    const found = new Set<string>();
    for (const stateMachineArn of arns) {
      const described = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn }));
      for (const arn of functionVersionsNamedIn(described.definition ?? "")) found.add(arn);
    }
    return found;
  };
  const prunedRefs = await named(machines.pruned);
  if (prunedRefs.size === 0) return { deletable: [] };
  const keptRefs = await named(machines.kept);
  const functions = new FunctionVersionIndex(lambda);
  const unreadable = await functions.unreadableEnvironment([...prunedRefs, ...keptRefs]);
  if (unreadable !== undefined) {
    return { deletable: [], blockedBy: `the environment of ${unreadable} could not be read` };
  }
  const candidates = await functions.closure(prunedRefs);
  const kept = await functions.closure(keptRefs);
  // Every remaining version's environment counts, not only those reached from a kept definition:
  // a version outside this stack's step functions may invoke a candidate too.
  for (const arn of await functions.namedByRemainingVersions(candidates)) kept.add(arn);
  const deletable: string[] = [];
  for (const arn of [...candidates].sort()) {
    if (kept.has(arn) || !(await functions.ownedBy(arn, stackName))) continue;
    if ((await functions.aliasTargets(arn)).has(arn)) continue;
    if (!(await functions.exists(arn))) continue;
    deletable.push(arn);
  }
  return { deletable };
}

/** Deletes each version (DeleteFunction with its Qualifier); returns those deleted. */
export async function deleteFunctionVersions(
  lambda: LambdaClient,
  versionArns: readonly string[],
): Promise<string[]> {
  const deleted: string[] = [];
  for (const arn of versionArns) {
    const { functionArn, version } = splitVersionArn(arn);
    await lambda.send(new DeleteFunctionCommand({ FunctionName: functionArn, Qualifier: version }));
    deleted.push(arn);
  }
  return deleted;
}

/** The versions and aliases of the functions met so far, each function listed once. */
class FunctionVersionIndex {
  private readonly versions = new Map<string, Promise<FunctionConfiguration[]>>();
  private readonly aliases = new Map<string, Promise<Set<string>>>();
  private readonly stacks = new Map<string, Promise<string | undefined>>();

  constructor(private readonly lambda: LambdaClient) {}

  /** The version ARNs `start` names and those their environments name, transitively. */
  async closure(start: ReadonlySet<string>): Promise<Set<string>> {
    const reached = new Set<string>();
    const queue = [...start];
    for (let arn = queue.shift(); arn !== undefined; arn = queue.shift()) {
      if (reached.has(arn)) continue;
      reached.add(arn);
      const config = await this.configurationOf(arn);
      queue.push(...functionVersionsNamedIn(JSON.stringify(config?.Environment?.Variables ?? {})));
    }
    return reached;
  }

  /** What the other versions of the candidates' functions, and of the functions they name, name. */
  async namedByRemainingVersions(candidates: ReadonlySet<string>): Promise<Set<string>> {
    const named = new Set<string>();
    const functionArns = new Set([...candidates].map((arn) => splitVersionArn(arn).functionArn));
    for (const functionArn of functionArns) {
      for (const config of await this.listVersions(functionArn)) {
        const arn = config.FunctionArn ?? "";
        if (candidates.has(arn)) continue;
        for (const ref of functionVersionsNamedIn(JSON.stringify(config.Environment?.Variables ?? {}))) {
          named.add(ref);
        }
      }
    }
    return named;
  }

  /** The first of `arns` (and what they name) whose environment Lambda could not return. */
  async unreadableEnvironment(arns: readonly string[]): Promise<string | undefined> {
    for (const arn of await this.closure(new Set(arns))) {
      if ((await this.configurationOf(arn))?.Environment?.Error !== undefined) return arn;
    }
    return undefined;
  }

  async exists(versionArn: string): Promise<boolean> {
    return (await this.configurationOf(versionArn)) !== undefined;
  }

  /** Whether CloudFormation created the version's function in the stack `stackName`. */
  async ownedBy(versionArn: string, stackName: string): Promise<boolean> {
    const { functionArn } = splitVersionArn(versionArn);
    let stack = this.stacks.get(functionArn);
    if (stack === undefined) {
      stack = this.lambda.send(new ListTagsCommand({ Resource: functionArn })).then(
        (listed) => listed.Tags?.[STACK_NAME_TAG],
        (error: unknown) => {
          if (isNotReadable(error)) return undefined;
          throw error;
        },
      );
      this.stacks.set(functionArn, stack);
    }
    return (await stack) === stackName;
  }

  /** The versions an alias of the version's function routes to (its version and weighted ones). */
  aliasTargets(versionArn: string): Promise<Set<string>> {
    const { functionArn } = splitVersionArn(versionArn);
    let listed = this.aliases.get(functionArn);
    if (listed === undefined) {
      listed = this.listAliasTargets(functionArn);
      this.aliases.set(functionArn, listed);
    }
    return listed;
  }

  private async configurationOf(versionArn: string): Promise<FunctionConfiguration | undefined> {
    const { functionArn } = splitVersionArn(versionArn);
    return (await this.listVersions(functionArn)).find((config) => config.FunctionArn === versionArn);
  }

  private listVersions(functionArn: string): Promise<FunctionConfiguration[]> {
    let listed = this.versions.get(functionArn);
    if (listed === undefined) {
      listed = this.listAllVersions(functionArn);
      this.versions.set(functionArn, listed);
    }
    return listed;
  }

  private async listAllVersions(functionArn: string): Promise<FunctionConfiguration[]> {
    try {
      return await this.listEveryPage(functionArn);
    } catch (error) {
      // Another account's function (a user tool may be one) or one deleted since: not the stack's,
      // so none of its versions is deleted, and what it invokes is not the stack's concern.
      if (isNotReadable(error)) return [];
      throw error;
    }
  }

  private async listEveryPage(functionArn: string): Promise<FunctionConfiguration[]> {
    const versions: FunctionConfiguration[] = [];
    let Marker: string | undefined;
    do {
      const page = await this.lambda.send(
        new ListVersionsByFunctionCommand({ FunctionName: functionArn, Marker }),
      );
      versions.push(...(page.Versions ?? []));
      Marker = page.NextMarker;
    } while (Marker !== undefined);
    return versions;
  }

  private async listAliasTargets(functionArn: string): Promise<Set<string>> {
    const targets = new Set<string>();
    let Marker: string | undefined;
    do {
      const page = await this.lambda.send(new ListAliasesCommand({ FunctionName: functionArn, Marker }));
      for (const alias of page.Aliases ?? []) {
        const routed = [
          alias.FunctionVersion,
          ...Object.keys(alias.RoutingConfig?.AdditionalVersionWeights ?? {}),
        ];
        for (const version of routed) if (version !== undefined) targets.add(`${functionArn}:${version}`);
      }
      Marker = page.NextMarker;
    } while (Marker !== undefined);
    return targets;
  }
}

/** An answer that says the function is not this caller's to read: another account's, or gone. */
function isNotReadable(error: unknown): boolean {
  const name = error instanceof Error ? error.name : "";
  return name === "AccessDeniedException" || name === "ResourceNotFoundException";
}
