import type { ApiRouteSpec } from "./cloud-assembly-model";

export interface RouteMatch {
  readonly route: ApiRouteSpec;
  readonly pathParameters: Record<string, string> | null;
}

const segmentsOf = (path: string) => path.split("/").filter((s) => s !== "");

/** Literal segments beat `{param}`, which beats `{proxy+}`; an exact method beats ANY (as API Gateway). */
const RANK = { literal: 0, param: 1, greedy: 2 } as const;

function matchPath(
  resourcePath: string,
  pathSegments: string[],
): { params: Record<string, string>; ranks: number[] } | undefined {
  const pattern = segmentsOf(resourcePath);
  const params: Record<string, string> = {};
  const ranks: number[] = [];
  for (const [i, part] of pattern.entries()) {
    const greedy = /^\{(.+)\+\}$/.exec(part);
    if (greedy?.[1] !== undefined) {
      if (i !== pattern.length - 1 || pathSegments.length <= i) return undefined;
      params[greedy[1]] = pathSegments.slice(i).map(decodeURIComponent).join("/");
      ranks.push(RANK.greedy);
      return { params, ranks };
    }
    const segment = pathSegments[i];
    if (segment === undefined) return undefined;
    const param = /^\{(.+)\}$/.exec(part);
    if (param?.[1] !== undefined) {
      params[param[1]] = decodeURIComponent(segment);
      ranks.push(RANK.param);
    } else if (part === segment) {
      ranks.push(RANK.literal);
    } else {
      return undefined;
    }
  }
  return pathSegments.length === pattern.length ? { params, ranks } : undefined;
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? -1) - (b[i] ?? -1);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The route API Gateway would pick for a method and path, with its path parameters. */
export function matchRoute(
  routes: readonly ApiRouteSpec[],
  method: string,
  path: string,
): RouteMatch | undefined {
  const pathSegments = segmentsOf(path);
  const candidates = routes.flatMap((route) => {
    if (route.method !== method && route.method !== "ANY") return [];
    const matched = matchPath(route.resourcePath, pathSegments);
    return matched === undefined ? [] : [{ route, ...matched }];
  });
  candidates.sort(
    (a, b) =>
      compareRanks(a.ranks, b.ranks) || Number(a.route.method === "ANY") - Number(b.route.method === "ANY"),
  );
  const best = candidates[0];
  if (best === undefined) return undefined;
  return { route: best.route, pathParameters: Object.keys(best.params).length === 0 ? null : best.params };
}
