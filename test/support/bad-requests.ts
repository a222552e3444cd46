import fc from "fast-check";
import { expect } from "vitest";
import { APPROVAL_ID_PATTERN, GOAL_ID_PATTERN } from "../../lambdas/core/goal/goal-ids";
import { MAX_GOAL_SPEC_BYTES } from "../../lambdas/core/goal/json-bounds";

/**
 * Generated bad input for the API's edges, shared by the fuzz suite of the handlers (proxy events)
 * and the one of the local server (HTTP). Every request is one a door must refuse (or, for reads
 * with odd query and header names, answer normally): none may earn a 5xx, crash the server or
 * store anything. The families are the ones issue reports found: bad percent escapes, prototype
 * names, odd and overlong ids, deep or large bodies, near-valid GoalSpecs, wrong methods and
 * unknown routes, and Slack response URLs off Slack's hosts.
 */

export type Family =
  | "percent-escape"
  | "prototype-names"
  | "odd-id"
  | "deep-or-large-body"
  | "near-valid-goalspec"
  | "wrong-method"
  | "unknown-route"
  | "slack-response-url";

/** A route as a template: `{method: "GET", path: "/goals/{goalId}"}`. */
export interface RouteTemplate {
  readonly method: string;
  readonly path: string;
}

/** A Slack request the transport signs (with its secret and clock) and makes unique before sending. */
export interface SlackPart {
  readonly kind: "interaction" | "command";
  readonly responseUrl: string;
}

export interface FuzzRequest {
  readonly family: Family;
  readonly method: string;
  /**
   * The path as sent, percent-encoded (malformed on purpose in some families). `@goal` and
   * `@approval` stand for the fixture's existing goal and pending approval; the transport fills them.
   */
  readonly path: string;
  readonly query: readonly (readonly [string, string])[];
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: string;
  readonly slack?: SlackPart;
  /** The statuses that are right for this request. */
  readonly expect: readonly number[];
  /** For a 405: the methods `Allow` must name. */
  readonly allow?: readonly string[];
}

export interface FuzzAnswer {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What the fixture's placeholders stand for. */
export interface FuzzFixture {
  readonly goalId: string;
  readonly approvalId: string;
}

/** The request with `@goal` and `@approval` replaced by the fixture's ids. */
export function bind<T extends string | undefined>(text: T, fixture: FuzzFixture): T {
  if (text === undefined) return text;
  return text.replaceAll("@goal", fixture.goalId).replaceAll("@approval", fixture.approvalId) as T;
}

const PROTOTYPE_NAMES = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "isPrototypeOf",
  "__defineGetter__",
  "prototype",
];

/** Escapes `decodeURIComponent` refuses: a lone `%`, non-hex digits, cut or invalid UTF-8, a lone surrogate. */
const MALFORMED_ESCAPES = ["%", "%ZZ", "%E0%A4%A", "%C3", "%ED%A0%80", "%F0%9F%98", "%0", "%%", "%G1"];

/** Words that are, or are about to be, routes (the console, the stream, sub-goals): never "unknown". */
const RESERVED_WORDS = ["goals", "approvals", "slack", "email", "_local", "console", "stream", "children"];

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

const segmentsOf = (path: string) => path.split("/").filter((segment) => segment !== "");

/** Whether some template serves `path` (any method): `{x}` matches any one segment. */
function served(templates: readonly RouteTemplate[], path: string): boolean {
  const segments = segmentsOf(path);
  return templates.some((template) => {
    const parts = segmentsOf(template.path);
    return (
      parts.length === segments.length &&
      parts.every((part, index) => /^\{.+\}$/.test(part) || part === segments[index])
    );
  });
}

/** The template with its one parameter (if any) replaced by `segment`. */
function fill(template: string, segment: string): string {
  return template.replace(/\{[^}]+\}/, segment);
}

/** The fixture's id for a template's parameter: `@approval` for `{approvalId}`, else `@goal`. */
function fixtureIdFor(template: string): string {
  return template.includes("{approvalId}") ? "@approval" : "@goal";
}

function request(
  family: Family,
  method: string,
  path: string,
  rest: Partial<Omit<FuzzRequest, "family" | "method" | "path">> & { expect: readonly number[] },
): FuzzRequest {
  return { family, method, path, query: [], headers: [], ...rest };
}

/** `{"a":{"a":…1…}}` or `[[…]]` nested `depth` levels, as text (JSON.stringify overflows on it). */
function nestedText(depth: number, array: boolean): string {
  return array ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

const VALID_SPEC = {
  objective: "Tell ops that the release is out",
  successChecks: [
    {
      id: "ops-told",
      description: "notify succeeded",
      verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
    },
  ],
  tools: ["notify"],
  pattern: "react",
};

/** A valid spec's text with `"@inner"` replaced by `inner` (a JSON text). */
function specWith(inner: string): string {
  const spec = {
    ...VALID_SPEC,
    successChecks: [
      {
        ...VALID_SPEC.successChecks[0],
        verify: { kind: "tool_result", tool: "notify", expect: { equals: "@inner" } },
      },
    ],
  };
  return JSON.stringify(spec).replace('"@inner"', inner);
}

/** Bodies that carry `inner` (a JSON text) somewhere a schema would recurse into, per body-taking route. */
const BODY_TARGETS: readonly { method: string; path: string; body: (inner: string) => string }[] = [
  { method: "POST", path: "/goals", body: specWith },
  {
    method: "POST",
    path: "/goals/@goal/revisions",
    body: (inner) =>
      JSON.stringify({
        type: "redirect",
        content: "announce it elsewhere",
        successChecks: [
          {
            id: "c",
            description: "d",
            verify: { kind: "tool_result", tool: "notify", expect: { equals: "@inner" } },
          },
        ],
      }).replace('"@inner"', inner),
  },
  { method: "POST", path: "/goals/@goal/limits", body: (inner) => `{"maxSteps":${inner}}` },
  { method: "POST", path: "/goals/@goal/directive", body: (inner) => `{"text":${inner}}` },
  { method: "POST", path: "/goals/@goal/pause", body: (inner) => `{"reason":${inner}}` },
  {
    method: "POST",
    path: "/approvals/@approval",
    body: (inner) => `{"decision":"approve","comment":${inner}}`,
  },
];

function percentEscapes(idRoutes: readonly RouteTemplate[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route: fc.constantFrom(...idRoutes),
      prefix: fc.string({ unit: fc.constantFrom(..."abxz09-_~."), maxLength: 6 }),
      malformed: fc.constantFrom(...MALFORMED_ESCAPES),
    })
    .map(({ route, prefix, malformed }) =>
      request("percent-escape", route.method, fill(route.path, `${prefix}${malformed}`), {
        expect: [400],
        ...(route.method === "POST" ? { body: "{}" } : {}),
      }),
    );
}

function prototypeNames(readRoutes: readonly RouteTemplate[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route: fc.constantFrom(...readRoutes),
      names: fc.uniqueArray(fc.constantFrom(...PROTOTYPE_NAMES), { minLength: 1, maxLength: 3 }),
      value: fc.string({ maxLength: 12 }),
      where: fc.constantFrom("query", "headers", "both"),
    })
    .map(({ route, names, value, where }) => {
      const pairs = names.map((name) => [name, value] as const);
      return request("prototype-names", route.method, fill(route.path, fixtureIdFor(route.path)), {
        query: where === "headers" ? [] : pairs,
        headers: where === "query" ? [] : pairs,
        // Reads: answered normally (200), or refused for a reason of their own.
        expect: [200, 400, 404],
      });
    });
}

function oddIds(idRoutes: readonly RouteTemplate[]): fc.Arbitrary<FuzzRequest> {
  const id = fc
    .oneof(
      fc.integer({ min: 27, max: 3000 }).map((length) => `g-${"0".repeat(length)}`),
      fc.constantFrom(2040, 2044, 2045, 2048, 2049, 4096).map((length) => "x".repeat(length)),
      fc.string({ unit: fc.constantFrom(..."aAgG0-_.~:|#/ %+é😀"), minLength: 1, maxLength: 80 }),
      fc.constantFrom(
        "..",
        ".",
        `g-${"I".repeat(26)}`,
        `AP-${"A".repeat(32)}`,
        "__proto__",
        "constructor",
        "ap|1",
      ),
    )
    .filter((candidate) => !GOAL_ID_PATTERN.test(candidate) && !APPROVAL_ID_PATTERN.test(candidate));
  return fc.record({ route: fc.constantFrom(...idRoutes), id }).map(({ route, id: odd }) =>
    request("odd-id", route.method, fill(route.path, encodeURIComponent(odd)), {
      expect: [400],
      ...(route.method === "POST" ? { body: "{}" } : {}),
    }),
  );
}

function deepOrLargeBodies(): fc.Arbitrary<FuzzRequest> {
  const inner = fc.oneof(
    fc
      .record({ depth: fc.integer({ min: 65, max: 12_000 }), array: fc.boolean() })
      .map(({ depth, array }) => nestedText(depth, array)),
    fc
      .integer({ min: 1, max: 64 * 1024 })
      .map((extra) => JSON.stringify("x".repeat(MAX_GOAL_SPEC_BYTES + extra))),
  );
  return fc
    .record({ target: fc.constantFrom(...BODY_TARGETS), inner })
    .map(({ target, inner: text }) =>
      request("deep-or-large-body", target.method, target.path, { body: target.body(text), expect: [400] }),
    );
}

/** The GoalSpec's own keys: an "unknown key" mutation never picks one. */
const SPEC_KEYS = [
  "objective",
  "scope",
  "successChecks",
  "constraints",
  "limits",
  "pattern",
  "hints",
  "tools",
  "approval",
  "models",
  "parentGoalId",
];

type Spec = Record<string, unknown>;
/** A change to the valid spec; a string is a whole body of its own. */
type SpecMutation = (spec: Spec) => Spec | string;

/** One change that makes the valid spec invalid, each for sure. */
const specMutations: fc.Arbitrary<SpecMutation> = fc.oneof<fc.Arbitrary<SpecMutation>[]>(
  fc
    .oneof(
      fc.constantFrom<unknown>("", "   ", null, 0, true, [], {}),
      fc.integer({ min: 4001, max: 6000 }).map((length) => "o".repeat(length)),
    )
    .map((objective) => (spec: Spec) => ({ ...spec, objective })),
  fc
    .record({
      key: fc.oneof(
        fc.constantFrom(...PROTOTYPE_NAMES, "colour", "successCheck"),
        fc.string({ unit: fc.constantFrom(..."abcdefgh_"), minLength: 1, maxLength: 8 }),
      ),
      value: fc.jsonValue({ maxDepth: 3 }),
    })
    .filter(({ key }) => !SPEC_KEYS.includes(key))
    // Own properties, so `__proto__` is a key of the JSON text, as a hostile client would send it.
    .map(
      ({ key, value }) =>
        (spec: Spec) =>
          Object.fromEntries([[key, value], ...Object.entries(spec)]),
    ),
  fc
    .constantFrom<unknown>(
      [],
      Array.from({ length: 21 }, (_, index) => ({ ...VALID_SPEC.successChecks[0], id: `c${index}` })),
      [{ id: "x", description: "d", verify: { kind: "vibes" } }],
      [{ id: "x", description: "d", verify: { kind: "artifact", path: "../../etc/passwd" } }],
      [{ id: "x", description: "d", verify: { kind: "artifact", path: "/etc/passwd" } }],
      [{ id: "has space", description: "d", verify: { kind: "approval", prompt: "ok?" } }],
      [VALID_SPEC.successChecks[0], VALID_SPEC.successChecks[0]],
      "ops-told",
    )
    .map((successChecks) => (spec: Spec) => ({ ...spec, successChecks })),
  fc
    .constantFrom<unknown>(
      { maxSteps: 0 },
      { maxSteps: -1 },
      { maxSteps: 1.5 },
      { maxSteps: "10" },
      { maxCostUsd: 0 },
      { forever: true },
    )
    .map((limits) => (spec: Spec) => ({ ...spec, limits })),
  fc
    .string({ maxLength: 12 })
    .filter((pattern) => !["react", "plan_execute", "reflexion", "auto"].includes(pattern))
    .map((pattern) => (spec: Spec) => ({ ...spec, pattern })),
  fc
    .constantFrom<unknown>(["has space"], [""], ["../x"], ["a".repeat(65)], "notify")
    .map((tools) => (spec: Spec) => ({ ...spec, tools })),
  fc
    .constantFrom<unknown>({ boss: "x" }, { default: "" })
    .map((models) => (spec: Spec) => ({ ...spec, models })),
  fc.constantFrom("", "[]", "null", "42", '"a spec"', "{", "{objective:", "\u0000").map((text) => () => text),
);

function nearValidGoalSpecs(): fc.Arbitrary<FuzzRequest> {
  return specMutations.map((mutate) => {
    const mutated = mutate({ ...VALID_SPEC });
    return request("near-valid-goalspec", "POST", "/goals", {
      body: typeof mutated === "string" ? mutated : JSON.stringify(mutated),
      headers: [["content-type", "application/json"]],
      expect: [400],
    });
  });
}

function wrongMethods(routes: readonly RouteTemplate[]): fc.Arbitrary<FuzzRequest> {
  const paths = [...new Set(routes.map((route) => route.path))].map((path) => ({
    path,
    methods: routes.filter((route) => route.path === path).map((route) => route.method),
  }));
  return fc
    .record({ route: fc.constantFrom(...paths), method: fc.constantFrom(...METHODS) })
    .filter(({ route, method }) => !route.methods.includes(method))
    .map(({ route, method }) =>
      request("wrong-method", method, fill(route.path, fixtureIdFor(route.path)), {
        expect: [405],
        allow: route.methods,
      }),
    );
}

function unknownRoutes(templates: readonly RouteTemplate[]): fc.Arbitrary<FuzzRequest> {
  const word = fc
    .string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz-_"), minLength: 1, maxLength: 12 })
    .filter((candidate) => !RESERVED_WORDS.includes(candidate));
  return fc
    .record({
      method: fc.constantFrom("GET", "POST", "DELETE"),
      path: fc.oneof(
        word.map((w) => `/${w}`),
        word.map((w) => `/goals/@goal/${w}`),
        word.map((w) => `/goals/@goal/events/${w}`),
        word.map((w) => `/approvals/@approval/${w}`),
      ),
    })
    .filter(({ path }) => !served(templates, path))
    .map(({ method, path }) => request("unknown-route", method, path, { expect: [404] }));
}

const SLACK_HOSTS = ["hooks.slack.com", "hooks.slack-gov.com"];

/** Independent of the door's own check: https on one of Slack's hosts (and so not foreign). */
function onSlackHost(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" && SLACK_HOSTS.includes(parsed.hostname);
  } catch {
    return false;
  }
}

function foreignResponseUrls(): fc.Arbitrary<FuzzRequest> {
  const url = fc.oneof(
    fc.constantFrom(
      "javascript:alert(1)",
      "data:text/html,<b>x</b>",
      "http://hooks.slack.com/actions/T1/1/abc",
      "https://hooks.slack.com.attacker.example/actions/1",
      "https://attacker.example/hooks.slack.com/actions/1",
      "https://hooks.slack.com@attacker.example/actions/1",
      "https://user:pass@hooks.slack.com/actions/1",
      "https://hooks.slack.com:8443/actions/1",
      "ftp://hooks.slack.com/actions/1",
      "http://127.0.0.1:9/actions/1",
    ),
    fc.webUrl({ validSchemes: ["https", "http"] }).filter((candidate) => !onSlackHost(candidate)),
  );
  return fc
    .record({ kind: fc.constantFrom<"interaction" | "command">("interaction", "command"), url })
    .map(({ kind, url: responseUrl }) =>
      request(
        "slack-response-url",
        "POST",
        kind === "interaction" ? "/slack/interactions" : "/slack/commands",
        {
          slack: { kind, responseUrl },
          expect: [400],
        },
      ),
    );
}

export interface BadRequestOptions {
  /** The routes served (goals API, and the doors where the transport has them). */
  readonly routes: readonly RouteTemplate[];
  /** Paths answered outside the routes (the local runtime's `/_local/outbox`): never "unknown". */
  readonly otherPaths?: readonly string[];
  /** Whether the Slack door is there to take signed requests. */
  readonly slack: boolean;
}

/**
 * Every family, mixed. Bad percent escapes come first, and their routes start with
 * `GET /goals/{goalId}`: a failure there shrinks to the smallest request, `GET /goals/%`.
 */
export function badRequests(options: BadRequestOptions): fc.Arbitrary<FuzzRequest> {
  const routes = [...options.routes].sort(
    (a, b) => Number(a.method !== "GET") - Number(b.method !== "GET") || a.path.length - b.path.length,
  );
  const idRoutes = routes.filter((route) => /\{(goalId|approvalId)\}/.test(route.path));
  const readRoutes = routes.filter((route) => route.method === "GET" && !route.path.startsWith("/email/"));
  const templates = [...routes, ...(options.otherPaths ?? []).map((path) => ({ method: "GET", path }))];
  return fc.oneof(
    percentEscapes(idRoutes),
    prototypeNames(readRoutes),
    oddIds(idRoutes),
    deepOrLargeBodies(),
    nearValidGoalSpecs(),
    wrongMethods(routes),
    unknownRoutes(templates),
    ...(options.slack ? [foreignResponseUrls()] : []),
  );
}

/** One line a person can read and replay: method, path, query, headers, and the start of the body. */
export function describeRequest(request: FuzzRequest): string {
  const query =
    request.query.length === 0
      ? ""
      : `?${new URLSearchParams(request.query.map(([k, v]): [string, string] => [k, v])).toString()}`;
  const headers = request.headers.map(([name, value]) => ` [${name}: ${value}]`).join("");
  const slack = request.slack
    ? ` (signed Slack ${request.slack.kind}, response_url=${request.slack.responseUrl})`
    : "";
  const body =
    request.body === undefined
      ? ""
      : ` body (${Buffer.byteLength(request.body)} bytes): ${request.body.length > 160 ? `${request.body.slice(0, 160)}…` : request.body}`;
  const path =
    request.path.length > 200
      ? `${request.path.slice(0, 200)}… (${request.path.length} characters)`
      : request.path;
  return `${request.method} ${path}${query}${headers}${slack}${body}`;
}

const ErrorShape = {
  error: { code: expect.any(String), message: expect.any(String) },
};

/**
 * Checks one answer: never a 5xx, one of the request's expected statuses, the API's error shape on
 * every 4xx (`{error:{code, message}}`; the email door's pages and Slack's ephemeral messages have
 * shapes of their own), `Allow` on a 405, and an answer of bounded size (no echo of a 2 MB id).
 */
export function checkAnswer(request: FuzzRequest, answer: FuzzAnswer): void {
  const summary = `${answer.status} ${answer.body.length > 300 ? `${answer.body.slice(0, 300)}…` : answer.body}`;
  expect(answer.status, `a 5xx: ${summary}`).toBeLessThan(500);
  expect(request.expect, `expected a status in [${request.expect.join(", ")}], got ${summary}`).toContain(
    answer.status,
  );
  if (answer.status < 400) return;
  expect(answer.body.length, `an answer of ${answer.body.length} characters`).toBeLessThan(8192);
  if (request.allow !== undefined) {
    const allow = (answer.headers.allow ?? "").split(",").map((method) => method.trim());
    expect(allow.sort(), `Allow of ${summary}`).toEqual([...request.allow].sort());
  }
  if (
    request.path.startsWith("/email/approvals/") &&
    answer.headers["content-type"]?.startsWith("text/html")
  ) {
    return;
  }
  const body: unknown = JSON.parse(answer.body);
  if (request.slack !== undefined) {
    expect(body, `a Slack answer: ${summary}`).toMatchObject({ text: expect.any(String) });
    expect(JSON.stringify(body), summary).not.toContain("try again");
    return;
  }
  expect(body, `the error shape: ${summary}`).toMatchObject(ErrorShape);
  if (request.family === "near-valid-goalspec") {
    expect(body, summary).toMatchObject({ error: { code: "ValidationError", issues: expect.any(Array) } });
  }
  if (request.family === "unknown-route")
    expect(body, summary).toMatchObject({ error: { code: "RouteNotFound" } });
}

export interface FuzzOptions {
  readonly seed: number;
  readonly numRuns: number;
  /** Sends one request and returns the answer (the property checks it). */
  readonly send: (request: FuzzRequest) => Promise<FuzzAnswer>;
  /** The store as text; it must read the same before and after every request. */
  readonly stored: () => Promise<string>;
}

/**
 * Runs the property "every bad request gets a right 4xx, in the error shape, and stores nothing"
 * over `arbitrary`, seeded and bounded. A failure throws with the seed and path to replay it and
 * the minimal request fast-check shrank it to.
 */
export async function fuzzApi(
  name: string,
  arbitrary: fc.Arbitrary<FuzzRequest>,
  options: FuzzOptions,
): Promise<void> {
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (request) => {
      const before = await options.stored();
      const answer = await options.send(request);
      checkAnswer(request, answer);
      expect(
        await options.stored(),
        `the store changed after ${answer.status} ${answer.body.slice(0, 200)}`,
      ).toBe(before);
    }),
    { seed: options.seed, numRuns: options.numRuns },
  );
  if (!details.failed) return;
  const [minimal] = details.counterexample ?? [];
  const why =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(
    [
      `fuzz "${name}" found a bad answer (seed ${details.seed}, path "${details.counterexamplePath}": replay with these in fc.check)`,
      `minimal request: ${minimal === undefined ? "(none)" : describeRequest(minimal)}`,
      `what was wrong: ${why.split("\n")[0]}`,
    ].join("\n"),
  );
}
