import { describe, expect, it } from "vitest";
import { allowedMethods, matchRoute } from "../../lib/local/api/api-routes";
import type { ApiRouteSpec } from "../../lib/local/shared/cloud-assembly-model";
import { MalformedPathSegmentError } from "../../lib/local/shared/errors";

const route = (method: string, resourcePath: string): ApiRouteSpec => ({
  apiLogicalId: "Api",
  method,
  resourcePath,
  functionArn: `fn:${method}:${resourcePath}`,
  streaming: false,
});

const routes = [
  route("GET", "/goals"),
  route("POST", "/goals"),
  route("GET", "/goals/{goalId}"),
  route("GET", "/goals/{goalId}/events"),
  route("GET", "/goals/latest"),
  route("ANY", "/files/{proxy+}"),
  route("GET", "/files/{proxy+}"),
];

describe("matchRoute", () => {
  it.each([
    ["GET", "/goals", "/goals", null],
    ["POST", "/goals", "/goals", null],
    ["GET", "/goals/g-1", "/goals/{goalId}", { goalId: "g-1" }],
    ["GET", "/goals/g-1/events", "/goals/{goalId}/events", { goalId: "g-1" }],
    ["GET", "/goals/latest", "/goals/latest", null],
    ["GET", "/goals/a%20b", "/goals/{goalId}", { goalId: "a b" }],
    ["DELETE", "/files/a/b.txt", "/files/{proxy+}", { proxy: "a/b.txt" }],
  ])("routes %s %s to %s", (method, path, resourcePath, pathParameters) => {
    // Act
    const match = matchRoute(routes, method, path);

    // Assess
    expect(match?.route.resourcePath).toBe(resourcePath);
    expect(match?.pathParameters).toEqual(pathParameters);
  });

  it("prefers a route's exact method over ANY", () => {
    // Act
    const match = matchRoute(routes, "GET", "/files/x");

    // Assess
    expect(match?.route.method).toBe("GET");
  });

  it.each([
    ["DELETE", "/goals"],
    ["GET", "/goals/g-1/events/extra"],
    ["GET", "/files"],
    ["GET", "/"],
    // An empty segment names no resource (API Gateway has no such route): not the goal list.
    ["GET", "//goals"],
    ["GET", "/goals//events"],
    ["GET", "/goals//"],
  ])("finds no route for %s %s", (method, path) => {
    // Act + Assess
    expect(matchRoute(routes, method, path)).toBeUndefined();
  });

  it.each([
    ["/goals/%", "goalId", "%"],
    ["/goals/%ZZ/events", "goalId", "%ZZ"],
    ["/goals/%E0%A4%A", "goalId", "%E0%A4%A"],
    ["/files/ok/%", "proxy", "%"],
  ])("refuses %s: the %s segment is not valid percent-encoding", (path, parameter, segment) => {
    // Act
    const match = () => matchRoute(routes, "GET", path);

    // Assess
    expect(match).toThrow(MalformedPathSegmentError);
    expect(match).toThrow(expect.objectContaining({ parameter, segment }));
  });

  it("keeps a path parameter named like a prototype key an ordinary value", () => {
    // Act
    const match = matchRoute(routes, "GET", "/goals/__proto__");

    // Assess
    expect(match?.pathParameters).toEqual({ goalId: "__proto__" });
    expect(Object.getPrototypeOf(match?.pathParameters)).toBe(Object.prototype);
  });

  it.each([
    ["/goals", ["GET", "POST"]],
    ["/goals/g-1/events", ["GET"]],
    ["/goals/%/events", ["GET"]],
    ["/nothing", []],
    ["/goals/g-1/events/extra", []],
  ])("names the methods that serve %s, for a 405's Allow", (path, methods) => {
    // Act + Assess
    expect(allowedMethods(routes, path)).toEqual(methods);
  });
});
