import { App, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { DefinitionBody, Pass, StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { JwtAuthSettingsSchema } from "../../lambdas/adapters/oidc/jwt-settings";
import { goalSpecJsonSchema } from "../../lambdas/core/goal/goal-spec";
import { TenantsSettingsSchema } from "../../lambdas/core/tenants/tenants-settings";
import { DUPLICATE_ROUTES_METADATA } from "../../lib/config/synth-target";
import { GoalEventBus } from "../../lib/constructs/goal-event-bus";
import { GoalTable } from "../../lib/constructs/goal-table";
import { GoalsApi, type GoalsApiProps } from "../../lib/constructs/goals-api";
import { JSON_SCHEMA_DRAFT4, toJsonSchemaDraft4 } from "../../lib/constructs/json-schema-draft4";
import { unbundledTestApp } from "./construct-test-app";
import {
  allowStatementsOf,
  allowsService,
  arnOf,
  flattenReferences,
  goalStoreVariables,
  onlyResource,
  rawStatementsOf,
  resourcesAllowed,
  resourcesOf,
  roleOf,
  type TemplateResource,
} from "./template-queries";

const EnvironmentSchema = z.object({ Variables: z.record(z.string(), z.unknown()) });

interface Synthesized {
  readonly template: Template;
  readonly stateMachineId: string;
  readonly handlerId: string;
  readonly handler: TemplateResource;
}

/** The one synth of this file (bundling skipped: the stack test bundles what `cdk synth` does). */
function synthesize(extra: Partial<GoalsApiProps> = {}): Synthesized {
  const app = unbundledTestApp();
  const stack = new Stack(app, "TestStack");
  const goalTable = new GoalTable(stack, "GoalTable");
  const react = new StateMachine(stack, "React", {
    definitionBody: DefinitionBody.fromChainable(new Pass(stack, "P")),
  });
  const goalEventBus = new GoalEventBus(stack, "GoalEventBus");
  new GoalsApi(stack, "GoalsApi", { goalTable, stateMachines: { react }, goalEventBus, ...extra });
  const template = Template.fromStack(stack);
  const [stateMachineId] = onlyResource(template, "AWS::StepFunctions::StateMachine");
  const [handlerId, handler] = onlyResource(template, "AWS::Lambda::Function", "GoalsApiHandler");
  return { template, stateMachineId, handlerId, handler };
}

/** Each method as "VERB /path", from its resource chain; only `restApiId`'s, when given. */
function routesOf(template: Template, restApiId?: string): Map<string, TemplateResource> {
  const resources = resourcesOf(template, "AWS::ApiGateway::Resource");
  const pathOf = (resourceId: unknown): string => {
    const id =
      typeof resourceId === "object" && resourceId !== null ? Reflect.get(resourceId, "Ref") : undefined;
    const resource = typeof id === "string" ? resources.get(id) : undefined;
    if (!resource) return "";
    return `${pathOf(resource.Properties.ParentId)}/${String(resource.Properties.PathPart)}`;
  };
  return new Map(
    [...resourcesOf(template, "AWS::ApiGateway::Method").values()]
      .filter(
        (method) =>
          restApiId === undefined ||
          JSON.stringify(method.Properties.RestApiId) === JSON.stringify({ Ref: restApiId }),
      )
      .map((method) => [
        `${String(method.Properties.HttpMethod)} ${pathOf(method.Properties.ResourceId)}`,
        method,
      ]),
  );
}

describe("GoalsApi", () => {
  let synthesized: Synthesized;
  let template: Template;

  beforeAll(() => {
    // Prepare + Act
    synthesized = synthesize();
    template = synthesized.template;
  });

  it("serves exactly the goals and goal-control routes, each through the API function as a Lambda proxy", () => {
    // Act: the event stream and the OpenAPI document have functions of their own (below).
    const ownFunctions = ["GET /goals/{goalId}/stream", "GET /openapi.json"];
    const routes = new Map([...routesOf(template)].filter(([route]) => !ownFunctions.includes(route)));

    // Assess
    expect([...routes.keys()].sort()).toEqual(
      [
        "GET /goals",
        "GET /goals/{goalId}",
        "GET /goals/{goalId}/events",
        "GET /goals/{goalId}/children",
        "GET /goals/{goalId}/details",
        "GET /goals/{goalId}/runs",
        "GET /goals/{goalId}/runs/{runId}/history",
        "POST /goals",
        "POST /goals/{goalId}/revisions",
        "POST /goals/{goalId}/directive",
        "POST /goals/{goalId}/pause",
        "POST /goals/{goalId}/resume",
        "POST /goals/{goalId}/retry",
        "POST /goals/{goalId}/limits",
        "POST /goals/{goalId}/cancel",
        "GET /goals/{goalId}/steps",
        "POST /goals/{goalId}/fork",
        "POST /goals/{goalId}/replay",
        "GET /approvals",
        "POST /approvals/{approvalId}",
        "GET /tenants/me",
        "POST /tenants/{tenantId}/limits",
        // Every other method of a served path reaches the function, which answers 405 with Allow.
        ...[
          "/goals",
          "/goals/{goalId}",
          "/goals/{goalId}/events",
          "/goals/{goalId}/stream",
          "/goals/{goalId}/details",
          "/goals/{goalId}/children",
          "/goals/{goalId}/runs",
          "/goals/{goalId}/runs/{runId}/history",
          ...["revisions", "directive", "pause", "resume", "retry", "limits", "cancel"].map(
            (c) => `/goals/{goalId}/${c}`,
          ),
          ...["steps", "fork", "replay"].map((h) => `/goals/{goalId}/${h}`),
          "/approvals",
          "/approvals/{approvalId}",
          "/openapi.json",
          "/tenants/me",
          "/tenants/{tenantId}/limits",
        ].map((path) => `ANY ${path}`),
      ].sort(),
    );
    for (const [route, method] of routes) {
      expect(method.Properties.Integration, route).toMatchObject({
        Type: "AWS_PROXY",
        IntegrationHttpMethod: "POST",
      });
      expect(flattenReferences(Reflect.get(Object(method.Properties.Integration), "Uri")), route).toContain(
        `/functions/${arnOf(synthesized.handlerId)}/invocations`,
      );
    }
  });

  it("requires IAM (SigV4) authorization on every method", () => {
    // Assess
    for (const [route, method] of routesOf(template)) {
      expect(method.Properties.AuthorizationType, route).toBe("AWS_IAM");
    }
  });

  it("validates POST /goals bodies against the GoalSpec model, draft 4, generated from zod", () => {
    // Prepare
    const [validatorId, validator] = onlyResource(template, "AWS::ApiGateway::RequestValidator");
    const [modelId, model] = onlyResource(template, "AWS::ApiGateway::Model");
    const post = routesOf(template).get("POST /goals");

    // Assess
    expect(validator.Properties).toMatchObject({
      ValidateRequestBody: true,
      ValidateRequestParameters: true,
    });
    expect(post?.Properties).toMatchObject({
      RequestValidatorId: { Ref: validatorId },
      RequestModels: { "application/json": { Ref: modelId } },
    });
    expect(model.Properties).toMatchObject({ Name: "GoalSpec", ContentType: "application/json" });
    expect(model.Properties.Schema).toEqual(toJsonSchemaDraft4(goalSpecJsonSchema()));
    expect(Reflect.get(Object(model.Properties.Schema), "$schema")).toBe(JSON_SCHEMA_DRAFT4);
  });

  it("declares the path and query parameters the routes read, the goal id required", () => {
    // Act
    const routes = routesOf(template);

    // Assess
    expect(routes.get("GET /goals/{goalId}")?.Properties.RequestParameters).toEqual({
      "method.request.path.goalId": true,
    });
    expect(routes.get("GET /goals/{goalId}/events")?.Properties.RequestParameters).toEqual({
      "method.request.path.goalId": true,
      "method.request.querystring.after": false,
      "method.request.querystring.limit": false,
      "method.request.querystring.waitSeconds": false,
    });
    for (const control of ["revisions", "directive", "pause", "resume", "retry", "limits", "cancel"]) {
      expect(routes.get(`POST /goals/{goalId}/${control}`)?.Properties.RequestParameters, control).toEqual({
        "method.request.path.goalId": true,
      });
    }
    expect(routes.get("GET /goals/{goalId}/steps")?.Properties.RequestParameters).toEqual({
      "method.request.path.goalId": true,
      "method.request.querystring.after": false,
      "method.request.querystring.limit": false,
    });
    expect(routes.get("POST /goals/{goalId}/fork")?.Properties.RequestParameters).toEqual({
      "method.request.path.goalId": true,
      "method.request.header.Idempotency-Key": false,
    });
    expect(routes.get("POST /goals/{goalId}/replay")?.Properties.RequestParameters).toEqual({
      "method.request.path.goalId": true,
    });
    expect(routes.get("GET /approvals")?.Properties.RequestParameters).toEqual({
      "method.request.querystring.status": false,
      "method.request.querystring.limit": false,
    });
    expect(routes.get("POST /approvals/{approvalId}")?.Properties.RequestParameters).toEqual({
      "method.request.path.approvalId": true,
    });
    expect(routes.get("GET /goals")?.Properties.RequestParameters).toEqual({
      "method.request.querystring.status": false,
      "method.request.querystring.limit": false,
      "method.request.querystring.cursor": false,
    });
  });

  /** The gateway response of a type, with its JSON template rendered as API Gateway would. */
  function gatewayResponse(type: string, messageString = "a message"): { status: unknown; body: unknown } {
    const [, response] = [...resourcesOf(template, "AWS::ApiGateway::GatewayResponse")].find(
      ([, candidate]) => candidate.Properties.ResponseType === type,
    ) ?? ["", undefined];
    if (!response) throw new Error(`no gateway response of type ${type}`);
    const body = String(Reflect.get(Object(response.Properties.ResponseTemplates), "application/json"));
    // API Gateway substitutes the variables; messageString arrives as a quoted JSON string.
    const rendered = body
      .replace("$context.error.messageString", JSON.stringify(messageString))
      .replace("$context.error.responseType", type)
      .replace("$context.requestId", "req-1");
    return { status: response.Properties.StatusCode, body: JSON.parse(rendered) };
  }

  it("leaves IAM's own ACCESS_DENIED to the default 4xx response: without the JWT authorizer no denial carries a context", () => {
    // Assess
    const types = [...resourcesOf(template, "AWS::ApiGateway::GatewayResponse").values()].map(
      (response) => response.Properties.ResponseType,
    );
    expect(types).not.toContain("ACCESS_DENIED");
    expect(gatewayResponse("DEFAULT_4XX").body).toMatchObject({ error: { code: "DEFAULT_4XX" } });
  });

  it("answers a body the model rejects in the API's error shape", () => {
    // Act
    const { body } = gatewayResponse("BAD_REQUEST_BODY", "Invalid request body");

    // Assess
    expect(body).toEqual({
      error: { code: "ValidationError", message: "Invalid request body", issues: [] },
      requestId: "req-1",
    });
  });

  it("answers an unknown path RouteNotFound, and an unsigned or unroutable request, in the API's error shape", () => {
    // Act
    const notFound = gatewayResponse("RESOURCE_NOT_FOUND", "Not Found");
    const missingToken = gatewayResponse("MISSING_AUTHENTICATION_TOKEN");

    // Assess: the status codes stay API Gateway's own (404, 403)
    expect(notFound).toEqual({
      status: undefined,
      body: { error: { code: "RouteNotFound", message: "Not Found" }, requestId: "req-1" },
    });
    expect(missingToken.status).toBeUndefined();
    expect(missingToken.body).toEqual({
      error: { code: "MissingAuthenticationToken", message: expect.stringContaining("No route") },
      requestId: "req-1",
    });
  });

  it("answers every other gateway 4xx in the API's error shape, its type as the code", () => {
    // Act
    const { body } = gatewayResponse("DEFAULT_4XX", "Too Many Requests");

    // Assess
    expect(body).toEqual({
      error: { code: "DEFAULT_4XX", message: "Too Many Requests" },
      requestId: "req-1",
    });
  });

  it("throttles the stage, traces it, and logs access and errors without bodies", () => {
    // Prepare
    const [accessLogsId, accessLogs] = onlyResource(template, "AWS::Logs::LogGroup", "GoalsApiAccessLogs");

    // Assess
    template.hasResourceProperties("AWS::ApiGateway::Stage", {
      StageName: "v1",
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: { "Fn::GetAtt": [accessLogsId, "Arn"] } },
      MethodSettings: [
        {
          HttpMethod: "*",
          ResourcePath: "/*",
          ThrottlingRateLimit: 50,
          ThrottlingBurstLimit: 100,
          LoggingLevel: "ERROR",
          DataTraceEnabled: false,
          MetricsEnabled: true,
        },
      ],
    });
    expect(accessLogs.Properties.RetentionInDays).toBe(30);
  });

  it("is a regional API", () => {
    // Assess
    template.hasResourceProperties("AWS::ApiGateway::RestApi", {
      EndpointConfiguration: { Types: ["REGIONAL"] },
    });
  });

  it("gives the function the goal store, the event bus, and the state machine ARNs by pattern as JSON", () => {
    // Prepare
    const goalStore = goalStoreVariables(template);
    const [busId] = onlyResource(template, "AWS::Events::EventBus");
    const { Variables: variables } = EnvironmentSchema.parse(synthesized.handler.Properties.Environment);

    // Assess
    expect(synthesized.handler.Properties).toMatchObject({ Runtime: "nodejs22.x", Architectures: ["arm64"] });
    expect(Object.keys(variables).sort()).toEqual(
      [
        "GOAL_EVENT_BUS_NAME",
        ...Object.keys(goalStore),
        "POWERTOOLS_LOG_LEVEL",
        "POWERTOOLS_SERVICE_NAME",
        "STATE_MACHINE_ARNS",
      ].sort(),
    );
    expect(variables).toMatchObject(goalStore);
    expect(variables.GOAL_EVENT_BUS_NAME).toEqual({ Ref: busId });
    expect(JSON.parse(flattenReferences(variables.STATE_MACHINE_ARNS))).toEqual({
      react: `<${synthesized.stateMachineId}>`,
    });
  });

  it("lets the function start executions of the given state machines and use the table, and call no model", () => {
    // Prepare
    const [tableId] = onlyResource(template, "AWS::DynamoDB::Table");
    const statements = allowStatementsOf(template, roleOf(synthesized.handler));

    // Assess
    expect(resourcesAllowed(statements, "states:StartExecution")).toEqual([
      `<${synthesized.stateMachineId}>`,
    ]);
    expect(resourcesAllowed(statements, "dynamodb:PutItem")).toContain(arnOf(tableId));
    expect(allowsService(statements, "bedrock")).toBe(false);
  });

  it("lets the function put events on the goal event bus only", () => {
    // Prepare
    const [busId] = onlyResource(template, "AWS::Events::EventBus");
    const statements = allowStatementsOf(template, roleOf(synthesized.handler));

    // Assess
    expect(resourcesAllowed(statements, "events:PutEvents")).toEqual([arnOf(busId)]);
  });

  it("lets API Gateway invoke each function through one permission scoped to this API, not one per method", () => {
    // Prepare
    const permissions = [...resourcesOf(template, "AWS::Lambda::Permission").values()];
    const [apiId] = onlyResource(template, "AWS::ApiGateway::RestApi");

    // Assess: the API function, the event stream's and the OpenAPI document's, one each, for every
    // method and stage of this API
    expect(permissions).toHaveLength(3);
    for (const permission of permissions) {
      expect(permission.Properties).toMatchObject({
        Action: "lambda:InvokeFunction",
        Principal: "apigateway.amazonaws.com",
      });
      const sourceArn = flattenReferences(permission.Properties.SourceArn);
      expect(sourceArn).toContain(`:execute-api:`);
      expect(sourceArn).toContain(`<${apiId}>/*/*/*`);
    }
  });

  it("streams GET /goals/{goalId}/stream from a function of its own that writes only its stream lease (REST response streaming)", () => {
    // Prepare
    const stream = routesOf(template).get("GET /goals/{goalId}/stream");
    const [streamId, streamFunction] = onlyResource(template, "AWS::Lambda::Function", "GoalsApiEventStream");
    const statements = allowStatementsOf(template, roleOf(streamFunction));

    // Assess
    expect(stream?.Properties.AuthorizationType).toBe("AWS_IAM");
    expect(stream?.Properties.Integration).toMatchObject({
      Type: "AWS_PROXY",
      ResponseTransferMode: "STREAM",
      TimeoutInMillis: 900_000,
    });
    expect(flattenReferences(Reflect.get(Object(stream?.Properties.Integration), "Uri"))).toContain(
      `/2021-11-15/functions/${arnOf(streamId)}/response-streaming-invocations`,
    );
    expect(streamFunction.Properties.Timeout).toBe(900);
    expect(resourcesAllowed(statements, "dynamodb:Query").length).toBeGreaterThan(0);
    // api.stream.maxOpen: it rewrites the open streams' lease item, and no other item
    const [tableId] = onlyResource(template, "AWS::DynamoDB::Table");
    expect(resourcesAllowed(statements, "dynamodb:PutItem")).toEqual([arnOf(tableId)]);
    const putting = rawStatementsOf(template, roleOf(streamFunction)).filter((statement) =>
      [statement.Action].flat().includes("dynamodb:PutItem"),
    );
    expect(JSON.stringify(putting.map((statement) => statement.Condition))).toBe(
      JSON.stringify([{ "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["STREAMS#*"] } }]),
    );
    expect(resourcesAllowed(statements, "dynamodb:UpdateItem")).toEqual([]);
    expect(resourcesAllowed(statements, "dynamodb:DeleteItem")).toEqual([]);
    expect(
      (streamFunction.Properties.Environment as { Variables: Record<string, unknown> }).Variables
        .MAX_OPEN_STREAMS,
    ).toBe("50");
  });

  it("serves GET /openapi.json from a function of its own, authorized like every goals route, that reads no table and calls no service", () => {
    // Prepare
    const document = routesOf(template).get("GET /openapi.json");
    const other = routesOf(template).get("ANY /openapi.json");
    const [documentId, documentFunction] = onlyResource(
      template,
      "AWS::Lambda::Function",
      "GoalsApiOpenApiDocumentHandler",
    );
    const statements = allowStatementsOf(template, roleOf(documentFunction));
    const variables = EnvironmentSchema.parse(documentFunction.Properties.Environment).Variables;

    // Assess: the GET reaches the document's function, buffered; every other method the API's (405)
    expect(document?.Properties.AuthorizationType).toBe("AWS_IAM");
    expect(document?.Properties.Integration).toMatchObject({
      Type: "AWS_PROXY",
      IntegrationHttpMethod: "POST",
    });
    expect(Reflect.get(Object(document?.Properties.Integration), "ResponseTransferMode")).toBeUndefined();
    expect(flattenReferences(Reflect.get(Object(document?.Properties.Integration), "Uri"))).toContain(
      `/2015-03-31/functions/${arnOf(documentId)}/invocations`,
    );
    expect(flattenReferences(Reflect.get(Object(other?.Properties.Integration), "Uri"))).toContain(
      `/functions/${arnOf(synthesized.handlerId)}/invocations`,
    );
    // Only what every goal-loops function's role holds: its own log group's streams, and X-Ray.
    expect(statements.flatMap((statement) => statement.actions).sort()).toEqual([
      "logs:CreateLogStream",
      "logs:PutLogEvents",
      "xray:PutTelemetryRecords",
      "xray:PutTraceSegments",
    ]);
    expect(Object.keys(variables).some((name) => name.startsWith("GOAL_TABLE"))).toBe(false);
    expect(variables.STATE_MACHINE_ARNS).toBeUndefined();
  });

  it("lets the API function read its runs' executions of its own state machines only", () => {
    // Prepare
    const statements = allowStatementsOf(template, roleOf(synthesized.handler));

    // Assess
    for (const action of ["states:DescribeExecution", "states:GetExecutionHistory"]) {
      const resources = resourcesAllowed(statements, action);
      expect(resources).toHaveLength(1);
      expect(resources[0]).toMatch(/:execution:.*:\*$/);
    }
    expect(resourcesAllowed(statements, "states:ListExecutions")).toEqual([]);
  });

  it.each<[string, Partial<GoalsApiProps>, RegExp]>([
    ["no state machine", { stateMachines: {} }, /at least one/],
    ["a stage name with a slash", { stageName: "v1/beta" }, /stageName/],
    ["a rate limit of 0", { throttlingRateLimit: 0 }, /throttlingRateLimit/],
    ["a fractional burst", { throttlingBurstLimit: 1.5 }, /throttlingBurstLimit/],
  ])("rejects %s before creating anything", (_case, props, message) => {
    // Prepare
    const stack = new Stack(new App(), "BadStack");
    const goalTable = new GoalTable(stack, "GoalTable");
    const react = new StateMachine(stack, "React", {
      definitionBody: DefinitionBody.fromChainable(new Pass(stack, "P")),
    });

    // Act + Assess
    expect(() => new GoalsApi(stack, "GoalsApi", { goalTable, stateMachines: { react }, ...props })).toThrow(
      message,
    );
    expect(stack.node.tryFindChild("GoalsApi")?.node.children ?? []).toHaveLength(0);
  });

  it("rejects a pattern it does not know", () => {
    // Prepare
    const stack = new Stack(new App(), "BadStack");
    const goalTable = new GoalTable(stack, "GoalTable");
    const react = new StateMachine(stack, "React", {
      definitionBody: DefinitionBody.fromChainable(new Pass(stack, "P")),
    });
    const stateMachines = Object.fromEntries([["tree_of_thought", react]]);

    // Act + Assess
    expect(() => new GoalsApi(stack, "GoalsApi", { goalTable, stateMachines })).toThrow(
      /unknown pattern 'tree_of_thought'/,
    );
  });
});

describe("GoalsApi with api.auth jwt", () => {
  const jwtAuth = JwtAuthSettingsSchema.parse({
    issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example",
    audience: "console-client",
    audienceClaim: "client_id",
    tenantClaim: "custom:tenant",
  });
  const tenants = TenantsSettingsSchema.parse({
    admins: ["arn:aws:iam::123456789012:role/operators"],
    limits: { default: { concurrentGoals: 5 } },
  });
  let template: Template;

  beforeAll(() => {
    // Prepare + Act
    template = synthesize({ jwtAuth, tenants }).template;
  });

  it("checks bearer tokens with a TOKEN Lambda authorizer on the Authorization header, cached per token", () => {
    // Assess
    const [, authorizer] = onlyResource(template, "AWS::ApiGateway::Authorizer");
    expect(authorizer.Properties).toMatchObject({
      Type: "TOKEN",
      IdentitySource: "method.request.header.Authorization",
      AuthorizerResultTtlInSeconds: 300,
    });
    expect(String(authorizer.Properties.IdentityValidationExpression)).toMatch(/^\^\[Bb\]earer /);
    const [, fn] = onlyResource(template, "AWS::Lambda::Function", "GoalsApiJwtAuthorizer");
    const variables = EnvironmentSchema.parse(fn.Properties.Environment).Variables;
    expect(JSON.parse(String(variables.JWT_AUTH))).toEqual(jwtAuth);
    expect(JSON.parse(String(variables.TENANTS))).toEqual(tenants);
  });

  it("puts every route behind the authorizer but the operators' limits route, which stays IAM", () => {
    // Assess
    for (const [route, method] of routesOf(template)) {
      const expected = route === "POST /tenants/{tenantId}/limits" ? "AWS_IAM" : "CUSTOM";
      expect(method.Properties.AuthorizationType, route).toBe(expected);
      if (expected === "CUSTOM") expect(method.Properties.AuthorizerId, route).toBeDefined();
      else expect(method.Properties.AuthorizerId, route).toBeUndefined();
    }
  });

  it("answers a refused token 401 in the API's error shape", () => {
    // Assess
    template.hasResourceProperties("AWS::ApiGateway::GatewayResponse", {
      ResponseType: "UNAUTHORIZED",
      ResponseTemplates: { "application/json": Match.stringLikeRegexp('"code":"Unauthorized"') },
    });
  });

  it("answers the authorizer's Deny 403 with the code and message of its context, in the API's error shape", () => {
    // Assess
    template.hasResourceProperties("AWS::ApiGateway::GatewayResponse", {
      ResponseType: "ACCESS_DENIED",
      StatusCode: "403",
      ResponseTemplates: {
        "application/json":
          '{"error":{"code":"$context.authorizer.code","message":"$context.authorizer.message"},"requestId":"$context.requestId"}',
      },
    });
  });

  it("gives the API, stream and document functions the tenants (each checks the caller's tenant)", () => {
    // Assess
    for (const id of ["GoalsApiHandler", "GoalsApiEventStreamHandler", "GoalsApiOpenApiDocumentHandler"]) {
      const [, fn] = onlyResource(template, "AWS::Lambda::Function", id);
      expect(
        JSON.parse(String(EnvironmentSchema.parse(fn.Properties.Environment).Variables.TENANTS)),
        id,
      ).toEqual(tenants);
    }
  });
});

describe("GoalsApi with api.auth iam+jwt", () => {
  const jwtAuth = JwtAuthSettingsSchema.parse({
    issuer: "https://issuer.example.com/",
    audience: "goal-loops",
    tenantClaim: "tenant",
  });
  let template: Template;
  let handlerId: string;
  let iamApiId: string;
  let jwtApiId: string;

  beforeAll(() => {
    // Prepare + Act
    const synthesized = synthesize({ jwtAuth, iamBesideJwt: true, cloudWatchRole: true });
    template = synthesized.template;
    handlerId = synthesized.handlerId;
    const apis = [...resourcesOf(template, "AWS::ApiGateway::RestApi").keys()];
    expect(apis).toHaveLength(2);
    [iamApiId = "", jwtApiId = ""] = [
      apis.find((id) => id.startsWith("GoalsApiRestApi")),
      apis.find((id) => id.startsWith("GoalsApiJwtRestApi")),
    ];
  });

  it("refuses iamBesideJwt without the issuer's settings", () => {
    // Prepare
    const stack = new Stack(new App(), "BadStack");
    const goalTable = new GoalTable(stack, "GoalTable");
    const react = new StateMachine(stack, "React", {
      definitionBody: DefinitionBody.fromChainable(new Pass(stack, "P")),
    });

    // Act + Assess
    expect(
      () => new GoalsApi(stack, "GoalsApi", { goalTable, stateMachines: { react }, iamBesideJwt: true }),
    ).toThrow("GoalsApi: iamBesideJwt needs jwtAuth");
  });

  it("serves the same routes on both APIs: IAM on the one, the JWT authorizer on the other but for the operators' route", () => {
    // Act
    const iamRoutes = routesOf(template, iamApiId);
    const jwtRoutes = routesOf(template, jwtApiId);
    const [authorizerId] = onlyResource(template, "AWS::ApiGateway::Authorizer");

    // Assess
    expect([...jwtRoutes.keys()].sort()).toEqual([...iamRoutes.keys()].sort());
    expect(jwtRoutes.has("GET /goals/{goalId}/stream")).toBe(true);
    expect(jwtRoutes.has("ANY /goals")).toBe(true);
    for (const [route, method] of iamRoutes) {
      expect(method.Properties.AuthorizationType, route).toBe("AWS_IAM");
      expect(method.Properties.AuthorizerId, route).toBeUndefined();
    }
    for (const [route, method] of jwtRoutes) {
      if (route === "POST /tenants/{tenantId}/limits") {
        expect(method.Properties.AuthorizationType, route).toBe("AWS_IAM");
        continue;
      }
      expect(method.Properties.AuthorizationType, route).toBe("CUSTOM");
      expect(method.Properties.AuthorizerId, route).toEqual({ Ref: authorizerId });
    }
  });

  it("lets each API invoke the API, stream and document functions with one permission per API, scoped to that API", () => {
    // Prepare
    const [streamId] = onlyResource(template, "AWS::Lambda::Function", "GoalsApiEventStreamHandler");
    const [documentId] = onlyResource(template, "AWS::Lambda::Function", "GoalsApiOpenApiDocumentHandler");
    const permissions = [...resourcesOf(template, "AWS::Lambda::Permission").values()];

    // Act
    const sourceApis = (functionId: string) =>
      permissions
        .filter((permission) =>
          JSON.stringify(permission.Properties.FunctionName).includes(`"${functionId}"`),
        )
        .map((permission) => flattenReferences(permission.Properties.SourceArn));

    // Assess
    for (const functionId of [handlerId, streamId, documentId]) {
      const sources = sourceApis(functionId);
      expect(sources, functionId).toHaveLength(2);
      expect(
        sources.filter((arn) => arn.includes(`<${iamApiId}>/*/*/*`)),
        functionId,
      ).toHaveLength(1);
      expect(
        sources.filter((arn) => arn.includes(`<${jwtApiId}>/*/*/*`)),
        functionId,
      ).toHaveLength(1);
    }
  });

  it("gives each API its stage, access logs and error answers; the authorizer's Deny shape only on the JWT API", () => {
    // Assess
    template.resourceCountIs("AWS::ApiGateway::Stage", 2);
    const responses = [...resourcesOf(template, "AWS::ApiGateway::GatewayResponse").values()];
    const typesOf = (apiId: string) =>
      responses
        .filter(
          (response) => JSON.stringify(response.Properties.RestApiId) === JSON.stringify({ Ref: apiId }),
        )
        .map((response) => String(response.Properties.ResponseType))
        .sort();
    const shared = [
      "BAD_REQUEST_BODY",
      "DEFAULT_4XX",
      "MISSING_AUTHENTICATION_TOKEN",
      "RESOURCE_NOT_FOUND",
      "UNAUTHORIZED",
    ];
    expect(typesOf(iamApiId)).toEqual(shared);
    expect(typesOf(jwtApiId)).toEqual([...shared, "ACCESS_DENIED"].sort());
  });

  it("sets the account's CloudWatch role once, before either stage deploys, and marks the JWT API as repeating the IAM one's routes", () => {
    // Assess
    const [accountId] = onlyResource(template, "AWS::ApiGateway::Account");
    for (const stage of resourcesOf(template, "AWS::ApiGateway::Stage").values()) {
      expect((stage as { DependsOn?: string[] }).DependsOn ?? []).toContain(accountId);
    }
    const metadataOf = (id: string): unknown =>
      z
        .object({ Metadata: z.record(z.string(), z.unknown()).optional() })
        .parse(template.toJSON().Resources[id]).Metadata?.[DUPLICATE_ROUTES_METADATA];
    expect(metadataOf(jwtApiId)).toBe(iamApiId);
    expect(metadataOf(iamApiId)).toBeUndefined();
  });
});
