import {
  DescribeStateMachineAliasCommand,
  DescribeStateMachineCommand,
  ListStateMachineVersionsCommand,
  type SFNClient,
} from "@aws-sdk/client-sfn";
import { GoalLoopsError } from "../../core/goal/errors";
import type { Pattern } from "../../core/goal/goal-spec";
import {
  liveAliasArn,
  parseVersionDescription,
  unqualifiedStateMachineArn,
  type VersionTarget,
} from "../../core/goal/runs-on";
import type { VersionDirectory } from "../../core/ports/run-control";

/**
 * Step Functions could not say which version to run on (throttled, access denied, a version that is
 * no goal-loops deploy's): nothing was started. Retryable unless the answer itself was wrong.
 */
export class VersionLookupError extends GoalLoopsError {
  override readonly name = "VersionLookupError";
  override readonly retryable: boolean;

  constructor(message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.retryable = retryable;
  }
}

export interface SfnVersionDirectoryOptions {
  /**
   * How long the alias's target is reused, in ms: a rollback reaches new goals within it. Versions
   * themselves never change, so what each one is is kept for the container's life.
   * @default 5000
   */
  readonly aliasCacheMs?: number;
  /** Picks between two routed versions by weight. @default Math.random */
  readonly random?: () => number;
  readonly now?: () => number;
}

const errorName = (error: unknown) => (error instanceof Error ? error.name : "UnknownError");
const RETRYABLE = new Set(["ThrottlingException", "ServiceUnavailable", "InternalServerError"]);

/**
 * The versions of the deployment's state machines (STATE_MACHINE_ARNS, unqualified), through
 * DescribeStateMachineAlias (the `live` alias), DescribeStateMachine (a version's description:
 * its deployed version and record schema, see versionDescription) and ListStateMachineVersions.
 */
export function sfnVersionDirectory(
  client: SFNClient,
  stateMachineArns: Readonly<Partial<Record<Pattern, string>>>,
  options: SfnVersionDirectoryOptions = {},
): VersionDirectory {
  const aliasCacheMs = options.aliasCacheMs ?? 5000;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const versions = new Map<string, Promise<VersionTarget>>();
  const aliases = new Map<string, { readonly at: number; readonly routes: Promise<Route[]> }>();

  const machineOf = (pattern: Pattern): string => {
    const arn = stateMachineArns[pattern];
    if (arn === undefined) {
      throw new VersionLookupError(`pattern ${pattern} has no state machine in this deployment`, false);
    }
    return unqualifiedStateMachineArn(arn);
  };

  /** What a version is, from its description; kept once known (a version never changes). */
  const describeVersion = (stateMachineVersionArn: string): Promise<VersionTarget> => {
    const known = versions.get(stateMachineVersionArn);
    if (known !== undefined) return known;
    const described = ask(`describe ${stateMachineVersionArn}`, () =>
      client.send(new DescribeStateMachineCommand({ stateMachineArn: stateMachineVersionArn })),
    ).then((answer) => {
      const parsed = parseVersionDescription(answer.description);
      if (parsed === undefined) {
        throw new VersionLookupError(
          `${stateMachineVersionArn} was not published by a goal-loops deploy (its description is '${answer.description ?? ""}')`,
          false,
        );
      }
      return { ...parsed, stateMachineVersionArn };
    });
    versions.set(stateMachineVersionArn, described);
    described.catch(() => versions.delete(stateMachineVersionArn));
    return described;
  };

  const routesOf = (aliasArn: string): Promise<Route[]> => {
    const cached = aliases.get(aliasArn);
    if (cached !== undefined && now() - cached.at < aliasCacheMs) return cached.routes;
    const routes = ask(`describe ${aliasArn}`, () =>
      client.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: aliasArn })),
    ).then((answer) =>
      (answer.routingConfiguration ?? []).flatMap((route) =>
        route.stateMachineVersionArn === undefined
          ? []
          : [{ stateMachineVersionArn: route.stateMachineVersionArn, weight: route.weight ?? 0 }],
      ),
    );
    aliases.set(aliasArn, { at: now(), routes });
    routes.catch(() => aliases.delete(aliasArn));
    return routes;
  };

  return {
    async live(pattern) {
      const aliasArn = liveAliasArn(machineOf(pattern));
      const routes = await routesOf(aliasArn);
      const chosen = pickByWeight(routes, random());
      if (chosen === undefined) throw new VersionLookupError(`${aliasArn} routes to no version`, false);
      return describeVersion(chosen);
    },
    async ofVersion(pattern, version) {
      const stateMachineArn = machineOf(pattern);
      let nextToken: string | undefined;
      do {
        const page = await ask(`list the versions of ${stateMachineArn}`, () =>
          client.send(new ListStateMachineVersionsCommand({ stateMachineArn, nextToken })),
        );
        for (const listed of page.stateMachineVersions ?? []) {
          if (listed.stateMachineVersionArn === undefined) continue;
          const target = await describeVersion(listed.stateMachineVersionArn).catch((error: unknown) => {
            // A version published by hand is no deploy's: skip it, any other failure stops the lookup.
            if (error instanceof VersionLookupError && !error.retryable) return undefined;
            throw error;
          });
          if (target?.version === version) return target;
        }
        nextToken = page.nextToken;
      } while (nextToken !== undefined);
      return undefined;
    },
  };
}

interface Route {
  readonly stateMachineVersionArn: string;
  readonly weight: number;
}

/** The route a draw in [0, 1) falls on, weights adding up to 100 (an alias routes to one or two). */
export function pickByWeight(routes: readonly Route[], draw: number): string | undefined {
  const total = routes.reduce((sum, route) => sum + route.weight, 0);
  let left = draw * total;
  for (const route of routes) {
    if (left < route.weight) return route.stateMachineVersionArn;
    left -= route.weight;
  }
  return routes.at(-1)?.stateMachineVersionArn;
}

async function ask<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const name = errorName(error);
    throw new VersionLookupError(`Step Functions did not ${what}: ${name}`, RETRYABLE.has(name), {
      cause: error,
    });
  }
}
