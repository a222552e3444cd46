import type { ApiRouteSpec } from "../shared/cloud-assembly-model";
import { MalformedPathSegmentError } from "../shared/errors";

export interface RouteMatch {
  readonly route: ApiRouteSpec;
  readonly pathParameters: Record<string, string> | null;
}

/**
 * How a path parameter is decoded. The API server swaps in the bare `decodeURIComponent` only
 * under its test-only switch (see `startApiServer`), so the fuzz suite can show it catches a
 * broken guard.
 */
export type SegmentDecoder = (parameter: string, segment: string) => string;

/** Decodes a parameter's segment, or throws MalformedPathSegmentError naming the parameter. */
export const guardedDecoder: SegmentDecoder = (parameter, segment) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new MalformedPathSegmentError(parameter, segment);
  }
};

/**
 * `/goals/g-1` → ["goals", "g-1"]. An empty segment is kept (`//goals` names no resource, as in API
 * Gateway, where it is no route); only one trailing slash is dropped.
 */
const segmentsOf = (path: string) => {
  const segments = path.split("/").slice(1);
  if (segments.at(-1) === "") segments.pop();
  return segments;
};

/** Literal segments beat `{param}`, which beats `{proxy+}`; an exact method beats ANY (as API Gateway). */
const RANK = { literal: 0, param: 1, greedy: 2 } as const;

/**
 * The parameters and ranks of `pathSegments` under a resource path, or undefined when it does not
 * match. Literal segments are compared as sent; only parameters are decoded.
 */
function matchPath(
  resourcePath: string,
  pathSegments: string[],
  decode: SegmentDecoder,
): { params: Map<string, string>; ranks: number[] } | undefined {
  const pattern = segmentsOf(resourcePath);
  const params = new Map<string, string>();
  const ranks: number[] = [];
  for (const [i, part] of pattern.entries()) {
    const greedy = /^\{(.+)\+\}$/.exec(part)?.[1];
    if (greedy !== undefined) {
      if (i !== pattern.length - 1 || pathSegments.length <= i) return undefined;
      params.set(
        greedy,
        pathSegments
          .slice(i)
          .map((segment) => decode(greedy, segment))
          .join("/"),
      );
      ranks.push(RANK.greedy);
      return { params, ranks };
    }
    const segment = pathSegments[i];
    if (segment === undefined || segment === "") return undefined;
    const param = /^\{(.+)\}$/.exec(part)?.[1];
    if (param !== undefined) {
      params.set(param, decode(param, segment));
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

/**
 * The route API Gateway would pick for a method and path, with its path parameters; undefined when
 * none matches. Throws MalformedPathSegmentError when a parameter's segment is not valid
 * percent-encoding.
 */
export function matchRoute(
  routes: readonly ApiRouteSpec[],
  method: string,
  path: string,
  decode: SegmentDecoder = guardedDecoder,
): RouteMatch | undefined {
  const pathSegments = segmentsOf(path);
  const candidates = routes.flatMap((route) => {
    if (route.method !== method && route.method !== "ANY") return [];
    const matched = matchPath(route.resourcePath, pathSegments, decode);
    return matched === undefined ? [] : [{ route, ...matched }];
  });
  candidates.sort(
    (a, b) =>
      compareRanks(a.ranks, b.ranks) || Number(a.route.method === "ANY") - Number(b.route.method === "ANY"),
  );
  const best = candidates[0];
  if (best === undefined) return undefined;
  // Object.fromEntries defines own properties: a parameter value never reaches a prototype.
  return {
    route: best.route,
    pathParameters: best.params.size === 0 ? null : Object.fromEntries(best.params),
  };
}

/**
 * The methods some route serves `path` with, for a 405's `Allow` when the request's method is not
 * one of them; empty when no route serves the path at all (a 404).
 */
export function allowedMethods(routes: readonly ApiRouteSpec[], path: string): string[] {
  const pathSegments = segmentsOf(path);
  // Any decoding will do: only whether the path matches counts here.
  const lenient: SegmentDecoder = (_parameter, segment) => segment;
  const methods = routes
    .filter((route) => matchPath(route.resourcePath, pathSegments, lenient) !== undefined)
    .map((route) => route.method);
  return [...new Set(methods)];
}
