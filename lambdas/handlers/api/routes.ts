import type { APIGatewayProxyResult } from "aws-lambda";
import type { CallerVia } from "../../core/tenants/tenants-settings";
import type { Operation } from "./contract/operations";

/** One request as the routes see it: the caller's tenant and the decoded parts they read. */
export interface ApiRequest {
  readonly tenantId: string;
  /** Who calls, for audit trails (revision log, cancel reason): the IAM principal's ARN, or `jwt:<sub>`. */
  readonly caller: string;
  /** How the caller signed in: IAM (SigV4; the local runtime's unsigned calls too) or a bearer token. */
  readonly via: CallerVia;
  /** Path parameters from the route template (`{goalId}`), URL-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** Header names in lower case (HTTP header names are case-insensitive). */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body as text (base64 bodies already decoded), or undefined when there is none. */
  readonly body: string | undefined;
}

export interface Route {
  readonly method: "GET" | "POST";
  /** A path template: `/goals/{goalId}/events`. */
  readonly path: string;
  readonly handle: (request: ApiRequest) => Promise<APIGatewayProxyResult>;
}

/** A route of an operation of the contract: its method and path come from the operations table. */
export function route(operation: Pick<Operation, "method" | "path">, handle: Route["handle"]): Route {
  return { method: operation.method, path: operation.path, handle };
}

export type RouteMatch =
  | { readonly kind: "found"; readonly route: Route; readonly params: Record<string, string> }
  | { readonly kind: "method_not_allowed"; readonly allow: readonly string[] }
  | { readonly kind: "not_found" }
  /** A path segment is not valid percent-encoding (`%`, `%ZZ`, a cut UTF-8 sequence). */
  | { readonly kind: "malformed_segment"; readonly segment: string };

/** `/goals/g-1/` → ["goals", "g-1"], or the first segment that is not valid percent-encoding. */
function segmentsOf(path: string): { segments: string[] } | { malformed: string } {
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "") continue;
    try {
      segments.push(decodeURIComponent(segment));
    } catch {
      return { malformed: segment };
    }
  }
  return { segments };
}

function matchTemplate(template: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = template.split("/").filter((part) => part !== "");
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of parts.entries()) {
    const segment = segments[index] ?? "";
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (name !== undefined) params[name] = segment;
    else if (part !== segment) return undefined;
  }
  return params;
}

/**
 * Finds the route for a method and a concrete path. Matching on `httpMethod` and `path` alone works
 * for API Gateway (a resource per route, or one `{proxy+}`) and for the local runtime's events alike,
 * whether `resource` and `pathParameters` are set or not. A path that exists under another method
 * is a 405, so the caller learns the route is right and the method wrong.
 */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  const parsed = segmentsOf(path);
  if ("malformed" in parsed) return { kind: "malformed_segment", segment: parsed.malformed };
  const { segments } = parsed;
  const allow: string[] = [];
  for (const route of routes) {
    const params = matchTemplate(route.path, segments);
    if (params === undefined) continue;
    if (route.method === method.toUpperCase()) return { kind: "found", route, params };
    allow.push(route.method);
  }
  return allow.length > 0 ? { kind: "method_not_allowed", allow } : { kind: "not_found" };
}
