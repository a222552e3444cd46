import { GoalEventSchema } from "../../../core/goal/goal-event";
import { GoalSnapshotSchema } from "../../../core/goal/goal-record";
import { GoalSpecSchema } from "../../../core/goal/goal-spec";
import { SlackDoorAnswerSchema } from "../../../core/human/slack/slack-door-answer";
import * as z from "../../../core/zod";
import {
  allOperations,
  OPERATION_TAGS,
  type Operation,
  type OperationResponse,
  PATH_PARAMETERS,
} from "./operations";
import { IdempotencyKeySchema, ReasonBodySchema } from "./request-schemas";
import {
  AcceptedGoalSchema,
  ApiErrorSchema,
  ApprovalViewSchema,
  ControlAcceptedSchema,
  GatewayFailureSchema,
  GoalDetailsSchema,
  RevisionAcceptedSchema,
} from "./response-schemas";
import { SECURITY_SCHEMES, securityOf } from "./security-schemes";

/**
 * The OpenAPI document of the goals API, generated from the operations table and its zod schemas
 * with zod's own `z.toJSONSchema` (docs/api.md says why this and not a library).
 *
 * - `3.1` (the default) is what `GET /openapi.json` serves and the package ships: its schemas are
 *   JSON Schema 2020-12, as zod writes them.
 * - `3.0` is for tools that stop at 3.0, API Gateway's import among them (3.1 is "Invalid OpenAPI
 *   input" there): zod's `openapi-3.0` target writes `nullable` instead of `type: [.., "null"]`.
 *
 * Schemas used by several operations are components; request schemas are read as zod's input
 * (defaults optional, before transforms), responses as its output (strict objects are
 * `additionalProperties: false`, so a drifted field fails the response check).
 */
export type OpenApiVersion = "3.1" | "3.0";
export type JsonObject = { [key: string]: unknown };

/** The API's own version (the stage `v1`), not the package's: the document changes with the API. */
export const API_VERSION = "1";

/** Schemas that get a component of their own under these names; the others are named by operation. */
const NAMED_RESPONSES: ReadonlyArray<readonly [string, z.ZodMiniType]> = [
  ["GoalSnapshot", GoalSnapshotSchema],
  ["GoalEvent", GoalEventSchema],
  ["ApprovalView", ApprovalViewSchema],
  ["GoalDetails", GoalDetailsSchema],
  ["AcceptedGoal", AcceptedGoalSchema],
  ["ControlAccepted", ControlAcceptedSchema],
  ["RevisionAccepted", RevisionAcceptedSchema],
  ["ApiError", ApiErrorSchema],
  ["GatewayFailure", GatewayFailureSchema],
  ["SlackDoorAnswer", SlackDoorAnswerSchema],
];
const NAMED_REQUESTS: ReadonlyArray<readonly [string, z.ZodMiniType]> = [
  ["GoalSpec", GoalSpecSchema],
  ["ReasonRequest", ReasonBodySchema],
];

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
const refTo = (name: string) => `#/components/schemas/${name}`;

/** Registers each schema once under its name, and answers the name a schema got. */
class ComponentNames {
  readonly registry = z.registry<{ id: string }>();
  private readonly names = new Map<z.ZodMiniType, string>();

  add(name: string, schema: z.ZodMiniType): string {
    const known = this.names.get(schema);
    if (known !== undefined) return known;
    this.names.set(schema, name);
    this.registry.add(schema, { id: name });
    return name;
  }
}

function jsonSchemaOf(schema: z.ZodMiniType, version: OpenApiVersion, io: "input" | "output"): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: version === "3.1" ? "draft-2020-12" : "openapi-3.0",
    io,
    unrepresentable: "any",
  }) as JsonObject;
  return rest;
}

/**
 * Every registered schema as components, cross-referenced by `#/components/schemas/<name>`. What
 * several registered schemas share without a name of its own (zod's `__shared` definitions, e.g.
 * the recursive JSON value) becomes a component `<prefix>Shared<n>`: zod would refer to it as
 * `<uri>#/$defs/…`, which is no valid reference inside a document.
 */
function componentsOf(
  names: ComponentNames,
  version: OpenApiVersion,
  io: "input" | "output",
  sharedPrefix: string,
): JsonObject {
  const { schemas } = z.toJSONSchema(names.registry, {
    target: version === "3.1" ? "draft-2020-12" : "openapi-3.0",
    io,
    unrepresentable: "any",
    uri: refTo,
  }) as { schemas: Record<string, JsonObject> };
  const { __shared: shared, ...named } = schemas;
  const sharedDefs = (shared?.$defs ?? shared?.definitions ?? {}) as Record<string, JsonObject>;
  const components: Record<string, unknown> = {};
  for (const [name, { $schema: _dialect, $id: _id, ...schema }] of Object.entries(named))
    components[name] = schema;
  for (const [key, schema] of Object.entries(sharedDefs))
    components[`${sharedPrefix}${capitalized(key)}`] = schema;
  const text = JSON.stringify(components).replace(
    /#\/components\/schemas\/__shared#\/(?:\$defs|definitions)\/(\w+)/g,
    (_match, key: string) => refTo(`${sharedPrefix}${capitalized(key)}`),
  );
  return JSON.parse(text) as JsonObject;
}

function parametersOf(operation: Operation, version: OpenApiVersion): JsonObject[] {
  const pathNames = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? "");
  const path = pathNames.map((name) => {
    const schema = PATH_PARAMETERS[name as keyof typeof PATH_PARAMETERS];
    if (schema === undefined) throw new Error(`${operation.path}: no schema for path parameter '${name}'`);
    return { name, in: "path", required: true, schema: jsonSchemaOf(schema, version, "input") };
  });
  const shape = operation.query?.shape ?? {};
  const query = Object.entries(shape).map(([name, schema]) => {
    const param = schema as z.ZodMiniType;
    const required = !param.safeParse(undefined).success;
    return { name, in: "query", required, schema: jsonSchemaOf(param, version, "input") };
  });
  const headers = operation.idempotent
    ? [
        {
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description: "A retry with the same key answers as the first request did, and creates nothing new",
          schema: jsonSchemaOf(IdempotencyKeySchema, version, "input"),
        },
      ]
    : [];
  return [...path, ...query, ...headers];
}

function operationObject(
  operation: Operation,
  version: OpenApiVersion,
  input: ComponentNames,
  output: ComponentNames,
): JsonObject {
  const base = capitalized(operation.operationId);
  const responses: JsonObject = {};
  const describe = (status: string, answer: OperationResponse): JsonObject => {
    const contentType = answer.contentType ?? (answer.schema ? "application/json" : undefined);
    const schema = answer.schema ? { $ref: refTo(output.add(`${base}${status}`, answer.schema)) } : undefined;
    return {
      description: answer.description,
      ...(contentType === undefined ? {} : { content: { [contentType]: schema ? { schema } : {} } }),
    };
  };
  for (const [status, answer] of Object.entries(operation.responses))
    responses[status] = describe(status, answer);
  for (const status of operation.errors) {
    const answer = operation.errorAnswers?.[status];
    responses[String(status)] =
      answer === undefined ? { $ref: "#/components/responses/Error" } : describe(String(status), answer);
  }
  responses["4XX"] = { $ref: "#/components/responses/Error" };
  responses["5XX"] = { $ref: "#/components/responses/ServerError" };
  const body = operation.body;
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    tags: [operation.tag],
    security: securityOf(operation),
    parameters: parametersOf(operation, version),
    ...(body === undefined
      ? {}
      : {
          requestBody: {
            required: body.required,
            content: {
              "application/json": { schema: { $ref: refTo(input.add(`${base}Request`, body.schema)) } },
            },
          },
        }),
    responses,
  };
}

/** The whole document. Deterministic: the same schemas give the same bytes (the build compares them). */
export function openApiDocument(options: { version?: OpenApiVersion } = {}): JsonObject {
  const version = options.version ?? "3.1";
  const input = new ComponentNames();
  const output = new ComponentNames();
  for (const [name, schema] of NAMED_REQUESTS) input.add(name, schema);
  for (const [name, schema] of NAMED_RESPONSES) output.add(name, schema);
  const paths: Record<string, JsonObject> = {};
  for (const operation of allOperations()) {
    const item = paths[operation.path] ?? {};
    item[operation.method.toLowerCase()] = operationObject(operation, version, input, output);
    paths[operation.path] = item;
  }
  const errorContent = { "application/json": { schema: { $ref: refTo("ApiError") } } };
  return {
    openapi: version === "3.1" ? "3.1.0" : "3.0.3",
    info: {
      title: "goal-loops goals API",
      version: API_VERSION,
      description:
        "Start, watch and steer goal-directed agent loops. Errors are `{error: {code, message, …}}` with a stable `code`. A method a path does not list answers 405 `MethodNotAllowed` (the e-mail door: a page) with an `Allow` header naming the ones it does.",
    },
    servers: [
      { url: "http://127.0.0.1:8787", description: "the local stack (`npm start`)" },
      {
        url: "https://{apiId}.execute-api.{region}.amazonaws.com/{stage}",
        description: "a deployed stack (its ApiUrl output)",
        variables: {
          apiId: { default: "abcdef1234" },
          region: { default: "us-east-1" },
          stage: { default: "v1" },
        },
      },
    ],
    tags: OPERATION_TAGS.map((name) => ({ name })),
    paths,
    components: {
      // Input and output components never share a name: requests are `*Request` or named above.
      schemas: {
        ...componentsOf(input, version, "input", "RequestShared"),
        ...componentsOf(output, version, "output", "Shared"),
      },
      responses: {
        Error: { description: "an error in the API's shape", content: errorContent },
        ServerError: {
          description:
            "an error in the API's shape (500 with a request id, 503 with Retry-After), or API Gateway's own 502 `{message}`",
          content: {
            "application/json": {
              schema: { oneOf: [{ $ref: refTo("ApiError") }, { $ref: refTo("GatewayFailure") }] },
            },
          },
        },
      },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
