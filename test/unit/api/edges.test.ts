import { describe, expect, it, vi } from "vitest";
import { MAX_JSON_DEPTH } from "../../../lambdas/core/goal/json-bounds";
import { MAX_REQUEST_BODY_BYTES } from "../../../lambdas/handlers/api/request-body";
import { aGoalSpec, apiEvent, aTenant, bodyOf, buildApi, suiteStoreBackend } from "./api-harness";

/** `{"a":{"a":…1…}}` with `levels` objects, as text: JSON.stringify itself overflows on deep values. */
function nestedText(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
}

/** A body whose `value` field is `deepText` and otherwise `body`, as the text a client sends. */
function withDeepValue(body: Record<string, unknown>, deepText: string): string {
  return JSON.stringify(body).replace('"@deep"', deepText);
}

/** A GoalSpec whose tool_result check expects `equals` nested `levels` deep, as text. */
function deepSpec(levels: number): string {
  const spec = aGoalSpec({
    successChecks: [
      {
        id: "deep",
        description: "the tool answers the deep value",
        verify: { kind: "tool_result", tool: "notify", expect: { equals: "@deep" } },
      },
    ],
  });
  return withDeepValue(spec as Record<string, unknown>, nestedText(levels));
}

const LONG_GOAL_ID = `g-${"0".repeat(2042)}`;
const LONG_APPROVAL_ID = `ap-${"0".repeat(2037)}`;

describe("the goals API's edges (bad input is a 4xx in the error shape, and stores nothing)", () => {
  const backend = suiteStoreBackend();

  async function call(
    tenant: string,
    method: string,
    path: string,
    options: { body?: unknown; query?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    const { api, publisher, sfn } = buildApi(backend.store);
    const result = await api(apiEvent({ method, path, accountId: tenant, ...options }));
    return { result, publisher, sfn };
  }

  async function storedGoals(tenant: string): Promise<number> {
    return (await backend.store.listGoals({ tenantId: tenant })).items.length;
  }

  it.each([
    ["GET /goals/<2,044 characters>", "GET", `/goals/${LONG_GOAL_ID}`, "goalId"],
    ["GET /goals/<2,044 characters>/events", "GET", `/goals/${LONG_GOAL_ID}/events`, "goalId"],
    ["POST /goals/<2,044 characters>/revisions", "POST", `/goals/${LONG_GOAL_ID}/revisions`, "goalId"],
    ["POST /approvals/<2,040 characters>", "POST", `/approvals/${LONG_APPROVAL_ID}`, "approvalId"],
    ["POST /goals/goal-1/cancel", "POST", "/goals/goal-1/cancel", "goalId"],
    ["POST /approvals/ap|1", "POST", "/approvals/ap|1", "approvalId"],
  ])("answers %s with 400 naming the id, before any key is read", async (_name, method, path, param) => {
    // Prepare
    const tenant = aTenant();
    const getGoal = vi.spyOn(backend.store, "getGoal");
    const getApproval = vi.spyOn(backend.store, "getApproval");

    // Act
    const { result, publisher } = await call(tenant, method, path, {
      body: method === "POST" ? { type: "add_constraint", content: "x", decision: "approve" } : undefined,
    });

    // Assess
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result).error).toMatchObject({
      code: "ValidationError",
      issues: [{ path: param, message: expect.stringContaining("must be") }],
    });
    expect(result.body.length).toBeLessThan(1000);
    expect(getGoal).not.toHaveBeenCalled();
    expect(getApproval).not.toHaveBeenCalled();
    expect(publisher.events).toEqual([]);
    getGoal.mockRestore();
    getApproval.mockRestore();
  });

  it.each(["%", "%ZZ", "%E0%A4%A"])(
    "answers a bad percent escape (%s) with 400 naming the segment",
    async (segment) => {
      // Act
      const { result } = await call(aTenant(), "GET", `/goals/${segment}`);

      // Assess
      expect(result.statusCode).toBe(400);
      expect(bodyOf(result).error).toMatchObject({
        code: "ValidationError",
        message: expect.stringContaining(`'${segment}' is not valid percent-encoding`),
      });
    },
  );

  it.each(["__proto__", "constructor", "toString", "hasOwnProperty"])(
    "treats a query or header named %s as just a name",
    async (name) => {
      // Act
      const listed = await call(aTenant(), "GET", "/goals", {
        query: { [name]: "" },
        headers: { [name]: "x" },
      });
      const bad = await call(aTenant(), "GET", "/goals", { query: { [name]: "", status: "nope" } });

      // Assess
      expect(listed.result.statusCode).toBe(200);
      expect(bodyOf(listed.result)).toEqual({ items: [] });
      expect(bad.result.statusCode).toBe(400);
    },
  );

  it.each([65, 1_000, 5_000, 8_125, 30_000])(
    "refuses a GoalSpec nested %i levels deep with 400 naming the limit, storing nothing",
    async (levels) => {
      // Prepare
      const tenant = aTenant();

      // Act
      const { result, sfn } = await call(tenant, "POST", "/goals", { body: deepSpec(levels) });

      // Assess
      expect(result.statusCode).toBe(400);
      expect(bodyOf(result).error).toMatchObject({
        code: "ValidationError",
        message: expect.stringContaining(`deeper than ${MAX_JSON_DEPTH} levels`),
      });
      expect(await storedGoals(tenant)).toBe(0);
      expect(sfn.calls()).toHaveLength(0);
    },
  );

  it("refuses a body above the size limit with 400 naming the limit, storing nothing", async () => {
    // Prepare
    const tenant = aTenant();
    const spec = aGoalSpec({ objective: "x".repeat(MAX_REQUEST_BODY_BYTES) });

    // Act
    const { result } = await call(tenant, "POST", "/goals", { body: spec });

    // Assess
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result).error).toMatchObject({
      code: "ValidationError",
      message: expect.stringContaining(`the limit is ${MAX_REQUEST_BODY_BYTES} bytes`),
    });
    expect(await storedGoals(tenant)).toBe(0);
  });

  it("refuses a revision nested too deep with 400, publishing nothing", async () => {
    // Prepare
    const tenant = aTenant();
    const created = await call(tenant, "POST", "/goals", { body: aGoalSpec() });
    const goalId = String(bodyOf(created.result).goalId);

    // Act
    const { result, publisher } = await call(tenant, "POST", `/goals/${goalId}/revisions`, {
      body: withDeepValue(
        {
          type: "redirect",
          content: "elsewhere",
          successChecks: [
            {
              id: "c",
              description: "d",
              verify: { kind: "tool_result", tool: "notify", expect: { equals: "@deep" } },
            },
          ],
        },
        nestedText(9_000),
      ),
    });

    // Assess
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result).error).toMatchObject({ message: expect.stringContaining("deeper than") });
    expect(publisher.events).toEqual([]);
  });

  it("answers wrong methods 405 with Allow and unknown routes 404 RouteNotFound", async () => {
    // Act
    const deleteGoals = await call(aTenant(), "DELETE", "/goals");
    const getLimits = await call(aTenant(), "GET", `/goals/g-${"0".repeat(26)}/limits`);
    const unknown = await call(aTenant(), "GET", `/goals/g-${"0".repeat(26)}/nothing`);

    // Assess
    expect(deleteGoals.result.statusCode).toBe(405);
    expect(deleteGoals.result.headers?.allow).toBe("POST, GET");
    expect(bodyOf(deleteGoals.result).error).toMatchObject({ code: "MethodNotAllowed" });
    expect(getLimits.result.statusCode).toBe(405);
    expect(getLimits.result.headers?.allow).toBe("POST");
    expect(unknown.result.statusCode).toBe(404);
    expect(bodyOf(unknown.result).error).toMatchObject({ code: "RouteNotFound" });
  });
});
