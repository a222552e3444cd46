import { openApiDocument } from "../../lambdas/handlers/api/contract/openapi-document";
import type { ApiFetch } from "../../lib/client/sigv4-fetch";
import { type ContractViolation, openApiResponseChecker } from "../../lib/local/api/openapi-response-check";

type JsonObject = { [key: string]: unknown };

/**
 * A fetch for the typed client of a stack in another process (`npm start` as a subprocess), whose
 * answers the in-process contract check cannot see: each answer is checked against the OpenAPI
 * document as it arrives, and what the document does not describe goes into `violations`. An
 * event stream is left to the in-process check (reading it here would hold the caller's stream).
 */
export function contractCheckingFetch(violations: ContractViolation[]): ApiFetch {
  const document = openApiDocument() as JsonObject;
  const check = openApiResponseChecker(document);
  const templates = Object.keys(document.paths as JsonObject).map((route) => ({
    route,
    pattern: new RegExp(`^${route.replace(/\{\w+\}/g, "[^/]+")}$`),
  }));
  return async (url, init) => {
    const response = await fetch(url, init);
    const path = new URL(url).pathname;
    const route = templates.find((template) => template.pattern.test(path))?.route;
    const contentType = response.headers.get("content-type") ?? undefined;
    if (route === undefined || contentType?.startsWith("text/event-stream")) return response;
    const violation = check({
      method: (init?.method ?? "GET").toUpperCase(),
      route,
      status: response.status,
      contentType,
      allow: response.headers.get("allow") ?? undefined,
      body: await response.clone().text(),
    });
    if (violation !== undefined) violations.push(violation);
    return response;
  };
}

/** Throws when answers went undescribed, naming each: called when the test's stack stops. */
export function assertNoViolations(violations: readonly ContractViolation[]): void {
  if (violations.length === 0) return;
  throw new Error(`Answers the OpenAPI document does not describe:\n${JSON.stringify(violations, null, 2)}`);
}
