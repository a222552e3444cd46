import { readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { toSnapshot } from "../../../lambdas/core/goal/snapshot";
import { openApiDocument } from "../../../lambdas/handlers/api/contract/openapi-document";
import { allOperations, OPERATIONS } from "../../../lambdas/handlers/api/contract/operations";
import { goalsApiRoutes } from "../../../lambdas/handlers/api/create-goals-api";
import type { GoalsApiDeps } from "../../../lambdas/handlers/api/goals-api-deps";
import { OPENAPI_DOCS_FILE, openApiDocumentText } from "../../../lib/build/openapi-file";
import { openApiResponseChecker } from "../../../lib/local/api/openapi-response-check";
import { aGoalRecord } from "../../support/goal-record-builder";

const DOCUMENT = openApiDocument();

describe("the OpenAPI document", () => {
  it.each(["3.1", "3.0"] as const)("validates against the OpenAPI %s meta-schema", async (version) => {
    // Act
    const result = await new Validator().validate(openApiDocument({ version }));

    // Assess
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it("is refused by the same validator when it breaks the meta-schema (the check can fail)", async () => {
    // Prepare: a response without its required description.
    const broken = structuredClone(DOCUMENT) as {
      paths: Record<string, Record<string, { responses: object }>>;
    };
    const getGoal = broken.paths["/goals/{goalId}"]?.get;
    if (getGoal === undefined) throw new Error("the document lost GET /goals/{goalId}");
    getGoal.responses = { 200: { content: {} } };

    // Act
    const result = await new Validator().validate(broken);

    // Assess
    expect(result.valid).toBe(false);
  });

  it("describes exactly the routes the goals API function serves, and the doors", () => {
    // Prepare: the routes only close over their dependencies; none is called here.
    const routes = goalsApiRoutes({} as GoalsApiDeps).map((route) => `${route.method} ${route.path}`);
    const paths = DOCUMENT.paths as Record<string, Record<string, unknown>>;

    // Act
    const described = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );

    // Assess
    expect(described.sort()).toEqual(
      allOperations()
        .map((op) => `${op.method} ${op.path}`)
        .sort(),
    );
    expect(routes.sort()).toEqual(
      Object.values(OPERATIONS)
        .map((op) => `${op.method} ${op.path}`)
        .sort(),
    );
  });

  it("takes SigV4 or a JWT bearer on every goals route, SigV4 alone on the operators' route, and nothing of the doors", () => {
    // Act
    const security = allOperations().map((op) => {
      const item = (DOCUMENT.paths as Record<string, Record<string, { security: unknown }>>)[op.path];
      return [op.operationId, item?.[op.method.toLowerCase()]?.security] as const;
    });

    // Assess
    const doors = ["slackInteractions", "slackCommands", "emailApprovalPage", "emailApprovalDecision"];
    for (const [operationId, required] of security) {
      const expected = doors.includes(operationId)
        ? []
        : operationId === "setTenantLimits"
          ? [{ sigv4: [] }]
          : [{ sigv4: [] }, { jwt: [] }];
      expect(required, operationId).toEqual(expected);
    }
    expect(DOCUMENT.components).toMatchObject({
      securitySchemes: {
        sigv4: { type: "apiKey", in: "header", "x-amazon-apigateway-authtype": "awsSigv4" },
        jwt: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      },
    });
  });

  it("is the same bytes every time, and docs/openapi.json is it (`npm run openapi` rewrites it)", () => {
    expect(JSON.stringify(openApiDocument())).toBe(JSON.stringify(DOCUMENT));
    const docs = readFileSync(path.join(import.meta.dirname, "../../..", OPENAPI_DOCS_FILE), "utf8");
    expect(docs).toBe(openApiDocumentText());
  });
});

describe("the response check", () => {
  const check = openApiResponseChecker(DOCUMENT);
  const snapshot = toSnapshot(aGoalRecord());
  const answer = (body: unknown, status = 200) => ({
    method: "GET",
    route: "/goals/{goalId}",
    status,
    contentType: "application/json; charset=utf-8",
    body: JSON.stringify(body),
  });

  it("passes a snapshot as the API builds it, and an error in the API's shape", () => {
    expect(check(answer(snapshot))).toBeUndefined();
    expect(
      check(answer({ error: { code: "GoalNotFound", message: "Goal 'g-1' does not exist" } }, 404)),
    ).toBe(undefined);
  });

  it("fails a snapshot with a drifted field, naming it", () => {
    // Prepare: `runId` renamed, as a refactor might.
    const { runId, ...rest } = snapshot;

    // Act
    const violation = check(answer({ ...rest, runID: runId }));

    // Assess
    expect(violation?.problems.join("\n")).toMatch(/required property "runId"/);
    expect(violation?.problems.join("\n")).toMatch(/runID/);
  });

  it("fails an error that grows an undocumented field, and a status no one described", () => {
    expect(
      check(answer({ error: { code: "GoalNotFound", message: "gone", secret: "x" } }, 404))?.problems,
    ).toEqual(expect.arrayContaining([expect.stringMatching(/secret/)]));
    expect(check({ ...answer(snapshot), route: "/goals/{goalId}/nowhere" })?.problems).toEqual([
      "the document has no GET /goals/{goalId}/nowhere",
    ]);
    expect(check({ ...answer({}), method: "POST", route: "/goals", status: 201 })?.problems).toEqual([
      "status 201 is not described",
    ]);
  });

  it("passes a 405 in the error shape whose Allow names the path's methods, and fails one that names others", () => {
    // Prepare: DELETE on /goals, which lists GET and POST.
    const methodNotAllowed = {
      method: "DELETE",
      route: "/goals",
      status: 405,
      contentType: "application/json; charset=utf-8",
      body: JSON.stringify({
        error: { code: "MethodNotAllowed", message: "DELETE is not allowed on /goals" },
      }),
    };

    // Act
    const described = check({ ...methodNotAllowed, allow: "POST, GET" });
    const wrongAllow = check({ ...methodNotAllowed, allow: "GET" });
    const missingAllow = check(methodNotAllowed);

    // Assess
    expect(described).toBeUndefined();
    expect(wrongAllow?.problems).toEqual(["Allow is 'GET', the path lists GET, POST"]);
    expect(missingAllow?.problems).toEqual(["Allow is '', the path lists GET, POST"]);
  });

  it("reads the Slack door's answers as Slack messages, and an empty acknowledgement as one", () => {
    // Prepare
    const slack = (body: unknown, status: number) => ({
      method: "POST",
      route: "/slack/interactions",
      status,
      contentType: "application/json; charset=utf-8",
      body: JSON.stringify(body),
    });

    // Act
    const refusal = check(slack({ response_type: "ephemeral", text: "not a slash command" }, 400));
    const apiShapedRefusal = check(slack({ error: { code: "ValidationError", message: "bad" } }, 400));
    const emptyAcknowledgement = check({ ...slack({}, 200), contentType: undefined, body: "" });

    // Assess
    expect(refusal).toBeUndefined();
    expect(apiShapedRefusal?.problems.join("\n")).toMatch(/required property "text"/);
    expect(emptyAcknowledgement).toBeUndefined();
  });

  it("reads an event stream frame by frame: each data validates as a goal event", () => {
    // Prepare
    const frame = (id: number, data: unknown) =>
      `id: ${id}\nevent: step.completed\ndata: ${JSON.stringify(data)}\n\n`;
    const event = { goalId: "g-1", seq: 1, type: "step.completed", at: "2026-12-07T09:00:00.000Z" };
    const stream = (body: string) => ({
      method: "GET",
      route: "/goals/{goalId}/stream",
      status: 200,
      contentType: "text/event-stream",
      body,
    });

    // Act
    const conforming = check(stream(`: open\n\n${frame(1, event)}${frame(2, { ...event, seq: 2 })}`));
    const drifted = check(stream(`${frame(1, event)}${frame(2, { ...event, seq: "2" })}`));

    // Assess
    expect(conforming).toBeUndefined();
    expect(drifted?.problems).toEqual([expect.stringMatching(/^event 2 #\/seq: /)]);
  });
});
