import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GoalStoreUnavailableError } from "../../../lambdas/adapters/shared/store-errors";
import {
  aGoalSpec,
  apiEvent,
  aTenant,
  bodyOf,
  buildApi,
  type StoreBackend,
  startStoreBackend,
} from "./api-harness";

describe("goals API routing and errors", () => {
  let backend: StoreBackend;

  beforeAll(async () => {
    backend = await startStoreBackend();
  });

  afterAll(async () => {
    await backend.stop();
  });

  it("answers 404 RouteNotFound for a path it does not serve", async () => {
    // Prepare
    const { api } = buildApi(backend.store);

    // Act
    const result = await api(apiEvent({ method: "GET", path: "/nothing/here", accountId: aTenant() }));

    // Assess
    expect(result.statusCode).toBe(404);
    expect(bodyOf(result).error).toMatchObject({ code: "RouteNotFound" });
  });

  it("answers 405 with Allow for a served path under another method", async () => {
    // Prepare
    const { api } = buildApi(backend.store);

    // Act
    const onList = await api(apiEvent({ method: "DELETE", path: "/goals", accountId: aTenant() }));
    const onEvents = await api(apiEvent({ method: "POST", path: "/goals/g-1/events", accountId: aTenant() }));

    // Assess
    expect(onList.statusCode).toBe(405);
    expect(onList.headers?.allow).toBe("POST, GET");
    expect(bodyOf(onList).error).toMatchObject({ code: "MethodNotAllowed" });
    expect(onEvents.statusCode).toBe(405);
    expect(onEvents.headers?.allow).toBe("GET");
  });

  it("routes on path alone: a trailing slash, and an event without resource or pathParameters", async () => {
    // Prepare: the local runtime may leave resource and pathParameters out
    const { api } = buildApi(backend.store);
    const tenant = aTenant();
    const created = await api(
      apiEvent({ method: "POST", path: "/goals/", body: aGoalSpec(), accountId: tenant }),
    );
    const goalId = String(bodyOf(created).goalId);
    const {
      resource: _resource,
      pathParameters: _parameters,
      ...bare
    } = apiEvent({
      method: "GET",
      path: `/goals/${goalId}`,
      accountId: tenant,
    });

    // Act
    const result = await api(bare as Parameters<typeof api>[0]);

    // Assess
    expect(created.statusCode).toBe(202);
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result).goalId).toBe(goalId);
  });

  it("answers 401 MissingCallerIdentity when the request has no IAM caller", async () => {
    // Prepare
    const { api, sfn } = buildApi(backend.store);

    // Act
    const result = await api(
      apiEvent({ method: "POST", path: "/goals", body: aGoalSpec(), accountId: null }),
    );

    // Assess
    expect(result.statusCode).toBe(401);
    expect(bodyOf(result).error).toMatchObject({ code: "MissingCallerIdentity" });
    expect(sfn.calls()).toHaveLength(0);
  });

  it("uses the local runtime's account id `local` as the tenant", async () => {
    // Prepare
    const { api } = buildApi(backend.store);

    // Act
    const created = await api(
      apiEvent({ method: "POST", path: "/goals", body: aGoalSpec(), accountId: "local" }),
    );

    // Assess
    const stored = await backend.store.getGoal(String(bodyOf(created).goalId));
    expect(stored?.record.tenantId).toBe("local");
  });

  it("answers 500 with the request id only, and logs the error", async () => {
    // Prepare
    const { api, logger } = buildApi(backend.store);
    const getGoal = vi
      .spyOn(backend.store, "getGoal")
      .mockRejectedValueOnce(new Error("secret table detail"));
    const logged = vi.spyOn(logger, "error");
    const event = apiEvent({ method: "GET", path: `/goals/g-${"0".repeat(26)}`, accountId: aTenant() });

    // Act
    const result = await api(event);

    // Assess
    expect(result.statusCode).toBe(500);
    expect(bodyOf(result)).toEqual({
      error: { code: "InternalError", message: "internal error", requestId: event.requestContext.requestId },
    });
    expect(result.body).not.toContain("secret");
    expect(logged).toHaveBeenCalledWith(
      "unexpected error",
      expect.objectContaining({ requestId: event.requestContext.requestId, error: expect.any(Error) }),
    );
    getGoal.mockRestore();
  });

  it("answers 503 ServiceUnavailable when the goal store is unavailable, without its details", async () => {
    // Prepare
    const { api } = buildApi(backend.store);
    const listGoals = vi
      .spyOn(backend.store, "listGoals")
      .mockRejectedValueOnce(new GoalStoreUnavailableError("DynamoDB listGoals failed: ThrottlingException"));

    // Act
    const result = await api(apiEvent({ method: "GET", path: "/goals", accountId: aTenant() }));

    // Assess
    expect(result.statusCode).toBe(503);
    expect(result.headers?.["retry-after"]).toBe("1");
    expect(bodyOf(result).error).toMatchObject({ code: "ServiceUnavailable" });
    expect(result.body).not.toContain("Throttling");
    listGoals.mockRestore();
  });
});
