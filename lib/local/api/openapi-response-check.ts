import { Validator } from "@cfworker/json-schema";
import { SseParser } from "../../../lambdas/core/goal/goal-event-stream";

type JsonObject = { [key: string]: unknown };

/** One answer the document does not describe: which route, which status, and what differs. */
export interface ContractViolation {
  readonly method: string;
  /** The route's template (`/goals/{goalId}`), as the document's `paths` name it. */
  readonly route: string;
  readonly status: number;
  readonly problems: readonly string[];
}

export interface ObservedResponse {
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly contentType: string | undefined;
  /** The `Allow` header, which a 405 must carry. */
  readonly allow?: string | undefined;
  readonly body: string;
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks answers against an OpenAPI 3.1 document (the one `GET /openapi.json` serves): the route
 * and status must be described, and a JSON body must validate against the described schema. The
 * schemas are validated as JSON Schema 2020-12 (@cfworker/json-schema), the document's components
 * moved under `$defs` so their references resolve inside one schema.
 */
export function openApiResponseChecker(
  document: JsonObject,
): (answer: ObservedResponse) => ContractViolation | undefined {
  const components = isObject(document.components) ? document.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  const responses = isObject(components.responses) ? components.responses : {};
  // `#/components/schemas/X` → `#/$defs/X`: one validator root holds every component.
  const defs = JSON.parse(
    JSON.stringify(schemas).replaceAll("#/components/schemas/", "#/$defs/"),
  ) as JsonObject;
  const validators = new Map<string, Validator>();
  const validatorFor = (schema: JsonObject): Validator => {
    const key = JSON.stringify(schema);
    let validator = validators.get(key);
    if (validator === undefined) {
      const rooted = JSON.parse(key.replaceAll("#/components/schemas/", "#/$defs/")) as JsonObject;
      validator = new Validator({ ...rooted, $defs: defs }, "2020-12", false);
      validators.set(key, validator);
    }
    return validator;
  };
  const paths = isObject(document.paths) ? document.paths : {};

  return (answer) => {
    const violation = (problems: string[]): ContractViolation => ({
      method: answer.method,
      route: answer.route,
      status: answer.status,
      problems,
    });
    const item = paths[answer.route];
    const operation = isObject(item) ? item[answer.method.toLowerCase()] : undefined;
    if (isObject(item) && operation === undefined && answer.status === 405) {
      return violationOfMethodNotAllowed(answer, item, validatorFor, violation);
    }
    if (!isObject(operation) || !isObject(operation.responses)) {
      return violation([`the document has no ${answer.method} ${answer.route}`]);
    }
    const described =
      operation.responses[String(answer.status)] ?? operation.responses[`${String(answer.status)[0]}XX`];
    if (!isObject(described)) return violation([`status ${answer.status} is not described`]);
    const response = resolveResponse(described, responses);
    const content = isObject(response.content) ? response.content : undefined;
    const mediaType = (answer.contentType ?? "").split(";")[0]?.trim() ?? "";
    if (content === undefined) {
      return answer.body === ""
        ? undefined
        : violation([`status ${answer.status} is described without a body`]);
    }
    // `content` lists the potential payloads (OpenAPI 3.1 §4.8.17.1): no body is one of them.
    if (answer.body === "" && answer.contentType === undefined) return undefined;
    const media = content[mediaType];
    if (!isObject(media)) {
      return violation([
        `content type '${mediaType}' is not described (described: ${Object.keys(content).join(", ")})`,
      ]);
    }
    if (mediaType === "text/event-stream" && isObject(media.schema)) {
      return violationOfStream(answer.body, validatorFor(media.schema), violation);
    }
    if (mediaType !== "application/json" || !isObject(media.schema)) return undefined;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return violation(["the body is not JSON"]);
    }
    const problems = problemsOf(validatorFor(media.schema), body);
    return problems.length > 0 ? violation(problems) : undefined;
  };
}

/** The innermost errors name the drifted field; the outer ones only repeat that a $ref failed. */
function problemsOf(validator: Validator, value: unknown): string[] {
  const result = validator.validate(value);
  if (result.valid) return [];
  const innermost = result.errors.filter((error) => !OUTER_KEYWORDS.has(error.keyword));
  return innermost.length > 0
    ? innermost.map((error) => `${error.instanceLocation}: ${error.error}`)
    : result.errors.map((error) => error.error);
}
const OUTER_KEYWORDS = new Set([
  "$ref",
  "properties",
  "items",
  "allOf",
  "anyOf",
  "oneOf",
  "additionalProperties",
]);

function resolveResponse(response: JsonObject, responses: JsonObject): JsonObject {
  const ref =
    typeof response.$ref === "string"
      ? /^#\/components\/responses\/(.+)$/.exec(response.$ref)?.[1]
      : undefined;
  if (ref === undefined) return response;
  const target = responses[ref];
  return isObject(target) ? target : {};
}

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * A method the path does not list: the document says (info.description) that it answers 405
 * `MethodNotAllowed` in the API's error shape (a door that serves pages, with a page), with `Allow`
 * naming exactly the methods it lists.
 */
function violationOfMethodNotAllowed(
  answer: ObservedResponse,
  item: JsonObject,
  validatorFor: (schema: JsonObject) => Validator,
  violation: (problems: string[]) => ContractViolation,
): ContractViolation | undefined {
  const listed = HTTP_METHODS.filter((method) => isObject(item[method]))
    .map((method) => method.toUpperCase())
    .sort();
  const allowed = (answer.allow ?? "")
    .split(",")
    .map((method) => method.trim().toUpperCase())
    .filter((method) => method !== "")
    .sort();
  const problems: string[] = [];
  if (allowed.join(",") !== listed.join(",")) {
    problems.push(`Allow is '${answer.allow ?? ""}', the path lists ${listed.join(", ")}`);
  }
  const mediaType = (answer.contentType ?? "").split(";")[0]?.trim() ?? "";
  if (mediaType === "text/html") {
    // The e-mail door answers a browser: its 405 is a page, as all its answers are.
    const servesPages = JSON.stringify(item).includes('"text/html"');
    if (!servesPages) problems.push("a page answers the 405 on a path that serves no pages");
    return problems.length > 0 ? violation(problems) : undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return violation([...problems, "the 405's body is not JSON"]);
  }
  const result = validatorFor({ $ref: "#/components/schemas/ApiError" }).validate(body);
  if (!result.valid)
    problems.push(...result.errors.map((error) => `${error.instanceLocation}: ${error.error}`));
  return problems.length > 0 ? violation(problems) : undefined;
}

/** An event stream as far as it was seen: each frame's `data:` must validate as one item. */
function violationOfStream(
  body: string,
  validator: Validator,
  violation: (problems: string[]) => ContractViolation,
): ContractViolation | undefined {
  const problems: string[] = [];
  for (const frame of new SseParser().push(body)) {
    let data: unknown;
    try {
      data = JSON.parse(frame.data);
    } catch {
      problems.push(`event ${frame.id}: its data is not JSON`);
      continue;
    }
    problems.push(...problemsOf(validator, data).map((problem) => `event ${frame.id} ${problem}`));
  }
  return problems.length > 0 ? violation(problems) : undefined;
}
