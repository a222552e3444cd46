import { Arn, ArnFormat, type CfnResource, Duration, Stack, Token } from "aws-cdk-lib";
import {
  AccessLogFormat,
  AuthorizationType,
  CfnModel,
  EndpointType,
  type IAuthorizer,
  type IModel,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  Model,
  ResponseType,
  RestApi,
  TokenAuthorizer,
} from "aws-cdk-lib/aws-apigateway";
import { ManagedPolicy, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import type { IStateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { JWT_AUTH_ENV, type JwtAuthSettings } from "../../lambdas/adapters/oidc/jwt-settings";
import { goalSpecJsonSchema, PATTERNS, type Pattern } from "../../lambdas/core/goal/goal-spec";
import { TENANTS_ENV, type TenantsSettings } from "../../lambdas/core/tenants/tenants-settings";
import { OPERATIONS, type Operation } from "../../lambdas/handlers/api/contract/operations";
import { DEFAULT_MAX_OPEN_STREAMS } from "../config/deployment-config";
import { DUPLICATE_ROUTES_METADATA } from "../config/synth-target";
import { allowModels } from "./bedrock-model-access";
import { AUTHORIZER_DENIAL_TEMPLATE } from "./gateway-error-templates";
import type { GoalEventBus } from "./goal-event-bus";
import { GoalEventStream } from "./goal-event-stream";
import { GoalLoopFunction, type GoalLoopLogLevel } from "./goal-loop-function";
import type { GoalTable } from "./goal-table";
import { toJsonSchemaDraft4 } from "./json-schema-draft4";
import { acknowledgeVersionLookup, VERSION_LOOKUP_ACTIONS } from "./loop-steps";
import {
  acknowledgeGoalTableGrant,
  acknowledgeNag,
  acknowledgeWildcardResource,
  nagReferenceName,
} from "./nag-acknowledgments";
import { OpenApiDocumentFunction } from "./openapi-document-function";
import { modelQuotasEnvironment, modelThinkingEnvironment, type ResolvedLoopModels } from "./pattern-loop";

/**
 * An IAM method on an API whose default is the JWT authorizer: CDK takes the authorizer's type as
 * the method's, so an authorizer-shaped IAM marker (no id) overrides the default.
 */
const IAM_METHOD = {
  authorizationType: AuthorizationType.IAM,
  authorizer: { authorizerId: "", authorizationType: AuthorizationType.IAM },
} as const;

/** API Gateway allows 10,000 requests per second per account and region by default. */
const MAX_RATE_LIMIT = 10_000;
const STAGE_NAME_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export interface GoalsApiProps {
  /** The goal store the API reads and creates goals in. */
  readonly goalTable: GoalTable;

  /**
   * The loop state machines by pattern; a goal is started on the one its pattern selects. A
   * pattern without one is answered 400 `PatternUnavailable`. At least one.
   */
  readonly stateMachines: Readonly<Partial<Record<Pattern, IStateMachine>>>;

  /**
   * The human-input bus: revisions, pauses, resumes and cancellations asked for through the API are
   * published on it (`GOAL_EVENT_BUS_NAME`) for the resume handler.
   *
   * @default - none: the revision, directive, pause, resume, retry, limits and cancel routes answer 503
   */
  readonly goalEventBus?: GoalEventBus;

  /**
   * The deployment's models (a pattern loop's `heavyModelId`, `fastModelId`, `allowedModelIds`):
   * POST /goals refuses a GoalSpec `models` entry outside the allow-list, and asks the `select`
   * role (fast tier) which pattern fits when no selector rule applies. The handler may then call
   * the allowed models.
   *
   * @default - no allow-list check at intake (IAM still refuses other models) and no select call
   */
  readonly models?: ResolvedLoopModels;

  /**
   * Name of the deployment stage, the first segment of every URL path.
   *
   * @default "v1"
   */
  readonly stageName?: string;

  /**
   * Steady-state requests per second the stage accepts before answering 429.
   *
   * @default 50
   */
  readonly throttlingRateLimit?: number;

  /**
   * Requests the stage accepts in a burst above the rate.
   *
   * @default 100
   */
  readonly throttlingBurstLimit?: number;

  /**
   * Whether to create the account's API Gateway CloudWatch role (`AWS::ApiGateway::Account`), which
   * the stage's execution and access logs need. There is one per account and region, shared by
   * every REST API there: creating it replaces the one the account has. When on, the role is kept
   * after the stack goes, since the account setting keeps pointing at it.
   *
   * @default false - the account's role is left alone; it must be set once per region (`goal-loops
   * preflight` checks it), or the stage fails to deploy
   */
  readonly cloudWatchRole?: boolean;

  /**
   * Event streams open at once (`api.stream.maxOpen`); past it a new stream answers 429 with
   * Retry-After and clients follow goals by the long poll. Each open stream holds one concurrent
   * execution of the stream function for up to 15 minutes.
   *
   * @default 50
   */
  readonly maxOpenStreams?: number;

  /**
   * Bearer tokens (JWT) of an OIDC issuer instead of IAM on every route (`api.auth.jwt`): a Lambda
   * TOKEN authorizer checks each token (issuer, audience, expiry, a key of the issuer's JWKS) and
   * hands the handlers `{via, tenantId, caller}`. The operators' `POST /tenants/{id}/limits` stays
   * IAM. A REST API method takes one authorization type, so a route is either IAM or JWT; for both
   * side by side, see `iamBesideJwt`.
   *
   * @default - IAM (SigV4) on every route
   */
  readonly jwtAuth?: JwtAuthSettings;

  /**
   * With `jwtAuth`, IAM callers keep an API of their own (`api.auth.mode: "iam+jwt"`): `restApi`
   * takes SigV4 on every route, as without `jwtAuth`, and `jwtRestApi` serves the same routes,
   * through the same functions, behind the JWT authorizer. A REST API method takes one
   * authorization type, so two ways in on the same routes are two APIs.
   *
   * @default false - with `jwtAuth`, one API, behind the authorizer
   */
  readonly iamBesideJwt?: boolean;

  /**
   * `tenants` of the configuration (TENANTS): who an IAM caller's tenant is, which tenants exist,
   * the operators and the limits.
   *
   * @default - every IAM caller is its account's tenant, no limit
   */
  readonly tenants?: TenantsSettings;

  /**
   * Powertools log level of the API function.
   *
   * @default "INFO"
   */
  readonly logLevel?: GoalLoopLogLevel;

  /**
   * How long the access log and the function's log group keep lines.
   *
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * The goals HTTP API (DESIGN §6) on API Gateway: a REST API whose every method requires IAM
 * (SigV4) authorization or a bearer token checked by a JWT authorizer, or two REST APIs with the
 * same routes, one each way (`iamBesideJwt`), served by one Lambda function through proxy
 * integrations, but for two routes with functions of their own: the event stream (response
 * streaming) and `GET /openapi.json` (so the API function carries no JSON Schema converter). POST /goals bodies are validated against the GoalSpec schema (generated from zod) before the function runs;
 * the stage is throttled, traced with X-Ray, and writes JSON access logs and error-level execution
 * logs without request or response bodies.
 */
export class GoalsApi extends Construct {
  /** The API: IAM on every route, or with `jwtAuth` alone the JWT authorizer. The doors add their routes here. */
  readonly restApi: RestApi;
  /** With `iamBesideJwt`: the same routes as `restApi` behind the JWT authorizer. */
  readonly jwtRestApi?: RestApi;
  readonly handler: GoalLoopFunction;
  /** The JWT authorizer's function, when the API takes bearer tokens (`jwtAuth`). */
  readonly authorizer?: GoalLoopFunction;
  /** The function behind `GET /goals/{goalId}/stream` (Server-Sent Events). */
  readonly eventStream: GoalEventStream;
  /** The function behind `GET /openapi.json`, which keeps zod's JSON Schema converter out of `handler`. */
  readonly openApiDocument: OpenApiDocumentFunction;
  /** The URL of the stage, ending with a slash: `https://{id}.execute-api.{region}.amazonaws.com/v1/`. */
  readonly url: string;
  /** With `iamBesideJwt`: the URL of `jwtRestApi`'s stage, ending with a slash. */
  readonly jwtUrl?: string;

  private readonly props: GoalsApiProps;

  constructor(scope: Construct, id: string, props: GoalsApiProps) {
    super(scope, id);
    validateProps(props);
    this.props = props;

    const stateMachineArns = Object.fromEntries(
      Object.entries(props.stateMachines).map(([pattern, stateMachine]) => [
        pattern,
        stateMachine.stateMachineArn,
      ]),
    );
    this.handler = new GoalLoopFunction(this, "Handler", {
      bundle: "goals-api",
      description: "goal-loops goals API: create goals, start their runs, read snapshots and events",
      logLevel: props.logLevel,
      logRetention: props.logRetention,
      environment: {
        ...props.goalTable.environment,
        STATE_MACHINE_ARNS: Stack.of(this).toJsonString(stateMachineArns),
        ...(props.goalEventBus ? { GOAL_EVENT_BUS_NAME: props.goalEventBus.eventBus.eventBusName } : {}),
        ...(props.models
          ? {
              HEAVY_MODEL_ID: props.models.heavyModelId,
              FAST_MODEL_ID: props.models.fastModelId,
              ALLOWED_MODEL_IDS: props.models.allowedModelIds.join(","),
              ...modelThinkingEnvironment(props.models.thinking),
              // The select call takes capacity only if there is some now (it never waits).
              ...modelQuotasEnvironment(props.models.modelQuotas),
            }
          : {}),
      },
    });
    if (props.models) allowModels(this, this.handler, props.models.allowedModelIds);
    props.goalTable.grantReadWriteData(this.handler);
    acknowledgeGoalTableGrant(this.handler.role, props.goalTable);
    for (const stateMachine of Object.values(props.stateMachines)) {
      // Step Functions authorizes a start on a version or an alias against the state machine's ARN.
      stateMachine.grantStartExecution(this.handler);
      // A new goal starts on the version the live alias names: the alias, the version's description.
      this.handler.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: VERSION_LOOKUP_ACTIONS,
          resources: [stateMachine.stateMachineArn, `${stateMachine.stateMachineArn}:*`],
        }),
      );
      acknowledgeVersionLookup(this.handler.role, stateMachine.stateMachineArn);
      // The runs routes read a goal's executions (`${goalId}-${runId}`) of this machine only.
      stateMachine.grantExecution(this.handler, "states:DescribeExecution", "states:GetExecutionHistory");
      acknowledgeWildcardResource(
        this.handler.role,
        `${Stack.of(this).formatArn({
          service: "states",
          resource: "execution",
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          resourceName: Arn.split(stateMachine.stateMachineArn, ArnFormat.COLON_RESOURCE_NAME).resourceName,
        })}:*`,
        "DescribeExecution and GetExecutionHistory name an execution, and a goal's run gets its execution at run time (goalId-runId); the wildcard covers only executions of this one state machine, read only.",
      );
    }
    props.goalEventBus?.grantPutEvents(this.handler);
    this.eventStream = new GoalEventStream(this, "EventStream", {
      goalTable: props.goalTable,
      logLevel: props.logLevel,
      logRetention: props.logRetention,
      maxOpen: props.maxOpenStreams ?? DEFAULT_MAX_OPEN_STREAMS,
    });
    this.openApiDocument = new OpenApiDocumentFunction(this, "OpenApiDocument", {
      logLevel: props.logLevel,
      logRetention: props.logRetention,
    });
    const tenantsEnvironment: Record<string, string> =
      props.tenants === undefined ? {} : { [TENANTS_ENV]: JSON.stringify(props.tenants) };
    this.handler.addEnvironment(tenantsEnvironment);
    this.eventStream.handler.addEnvironment(tenantsEnvironment);
    // The document's function checks the caller's tenant as every goals route does.
    this.openApiDocument.handler.addEnvironment(tenantsEnvironment);
    let tokenAuthorizer: IAuthorizer | undefined;
    if (props.jwtAuth !== undefined) {
      this.authorizer = new GoalLoopFunction(this, "JwtAuthorizer", {
        bundle: "jwt-authorizer",
        description: "goal-loops JWT authorizer: checks bearer tokens of the configured OIDC issuer",
        logLevel: props.logLevel,
        logRetention: props.logRetention,
        environment: { [JWT_AUTH_ENV]: JSON.stringify(props.jwtAuth), ...tenantsEnvironment },
      });
      tokenAuthorizer = new TokenAuthorizer(this, "TokenAuthorizer", {
        handler: this.authorizer.function,
        // Anything but `Bearer <compact JWS>` is a 401 without invoking the function.
        validationRegex: "^[Bb]earer [A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*$",
        // The policy is API-wide (one per token), so a caller's next requests skip the function.
        resultsCacheTtl: Duration.minutes(5),
      });
    }

    const cloudWatchRole = props.cloudWatchRole ?? false;
    const both = tokenAuthorizer !== undefined && props.iamBesideJwt === true;
    this.restApi = this.serveRoutes("RestApi", both ? undefined : tokenAuthorizer, cloudWatchRole);
    this.url = this.restApi.url;
    if (both) {
      const jwtRestApi = this.serveRoutes("JwtRestApi", tokenAuthorizer, false);
      // The account's CloudWatch role, when this stack sets it, must be in place before either stage logs.
      const account = this.restApi.node.tryFindChild("Account");
      if (account !== undefined) jwtRestApi.deploymentStage.node.addDependency(account);
      (jwtRestApi.node.defaultChild as CfnResource).addMetadata(
        DUPLICATE_ROUTES_METADATA,
        Stack.of(this).getLogicalId(this.restApi.node.defaultChild as CfnResource),
      );
      this.jwtRestApi = jwtRestApi;
      this.jwtUrl = jwtRestApi.url;
    }
  }

  /**
   * One REST API of the goals routes (`id` RestApi, or JwtRestApi beside it): IAM on every route,
   * or the JWT `authorizer` on every route but the operators'; its stage, access logs, gateway
   * error answers and cdk-nag acknowledgements.
   */
  private serveRoutes(
    id: "RestApi" | "JwtRestApi",
    authorizer: IAuthorizer | undefined,
    cloudWatchRole: boolean,
  ): RestApi {
    const { props } = this;
    const prefix = id === "RestApi" ? "" : "Jwt";
    const accessLogs = new LogGroup(this, `${prefix}AccessLogs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    const restApi = new RestApi(this, id, {
      restApiName: `${Stack.of(this).stackName}-goals${prefix === "" ? "" : "-jwt"}`,
      description: prefix === "" ? "goal-loops goals API" : "goal-loops goals API, bearer tokens (JWT)",
      // Callers are SDK, CLI and browser clients: a regional endpoint, no CloudFront hop.
      endpointTypes: [EndpointType.REGIONAL],
      defaultMethodOptions:
        authorizer === undefined
          ? { authorizationType: AuthorizationType.IAM }
          : { authorizationType: AuthorizationType.CUSTOM, authorizer },
      cloudWatchRole,
      deployOptions: {
        stageName: props.stageName ?? "v1",
        throttlingRateLimit: props.throttlingRateLimit ?? 50,
        throttlingBurstLimit: props.throttlingBurstLimit ?? 100,
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        // Bodies hold objectives and tool output: never in execution logs.
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
      },
    });
    // The stack outputs the URL under a stable name; RestApi's own output would repeat it.
    restApi.node.tryRemoveChild("Endpoint");
    this.addRoutes(restApi, prefix);
    this.answerOtherMethods(restApi);
    this.shapeGatewayErrors(restApi, authorizer !== undefined);
    this.acknowledgeNagFindings(restApi, cloudWatchRole, authorizer !== undefined);
    return restApi;
  }

  /**
   * A method for every operation of the API's contract (lambdas/handlers/api/contract), with the
   * path, query and header parameters its schemas name. The function validates bodies and values
   * with the same schemas; at the edge only the GoalSpec model is checked too (draft 4, from zod).
   */
  private addRoutes(api: RestApi, idPrefix: string): void {
    const integration = this.handlerIntegration();
    const documentIntegration = this.openApiDocument.integration();
    const validator = api.addRequestValidator("RequestValidator", {
      validateRequestBody: true,
      validateRequestParameters: true,
    });
    const resources = new Map<string, IResource>([["", api.root]]);
    const resourceFor = (path: string): IResource => {
      let resource = api.root;
      let at = "";
      for (const part of path.split("/").filter((segment) => segment !== "")) {
        at = `${at}/${part}`;
        const known = resources.get(at);
        resource = known ?? resource.addResource(part);
        resources.set(at, resource);
      }
      return resource;
    };
    for (const operation of Object.values(OPERATIONS)) {
      // The stream has a function of its own (response streaming), which adds `stream` under the goal.
      if (operation.operationId === OPERATIONS.streamEvents.operationId) {
        this.eventStream.addRoute(resourceFor(operation.path.replace(/\/stream$/, "")));
        continue;
      }
      const resource = resourceFor(operation.path);
      // The OpenAPI document has a function of its own (zod's JSON Schema converter stays out of the API's).
      const served =
        operation.operationId === OPERATIONS.getOpenApiDocument.operationId
          ? documentIntegration
          : integration;
      resource.addMethod(operation.method, served, {
        // The operators' route takes IAM whatever api.auth says (the JWT authorizer is the default).
        ...(operation.auth === "iam" ? IAM_METHOD : {}),
        requestValidator: validator,
        requestParameters: requestParametersOf(operation),
        ...(operation.operationId === OPERATIONS.createGoal.operationId
          ? { requestModels: { "application/json": this.goalSpecModel(api, idPrefix) } }
          : {}),
      });
    }
  }

  /**
   * The proxy integration to the API function, with one permission for the whole API
   * (`arn:…:execute-api:region:account:api-id/*`), not one per method: a function's resource policy
   * holds at most 20 KB, which one statement per method (about 440 bytes each) would fill once the
   * API had some 45 methods, and the deploy would fail.
   */
  private handlerIntegration(): LambdaIntegration {
    return new LambdaIntegration(this.handler.function, { scopePermissionToMethod: false });
  }

  /**
   * An ANY method on every resource the routes use, to the same function: a method the resource
   * does not serve (`DELETE /goals`) reaches the handler, which answers 405 with `Allow`, as the
   * local runtime does. Without it API Gateway answers 403 "Missing Authentication Token".
   */
  private answerOtherMethods(api: RestApi): void {
    const integration = this.handlerIntegration();
    const resources = new Set(api.methods.map((method) => method.resource));
    for (const resource of resources) resource.addMethod("ANY", integration);
  }

  /**
   * The GoalSpec model, from the zod schema (the single source) converted to the draft-4 dialect
   * API Gateway validates with. An L1 model, because the L2 takes CDK's typed JsonSchema.
   */
  private goalSpecModel(api: RestApi, idPrefix: string): IModel {
    const schema = toJsonSchemaDraft4(goalSpecJsonSchema());
    const model = new CfnModel(this, `${idPrefix}GoalSpecModel`, {
      restApiId: api.restApiId,
      name: "GoalSpec",
      contentType: "application/json",
      description: "A goal contract (GoalSpec), as POST /goals takes it",
      schema,
    });
    // As the L2 Model does: a changed schema makes a new deployment, or the stage keeps the old one.
    api.latestDeployment?.addToLogicalId({ goalSpecModel: schema });
    api.latestDeployment?.node.addDependency(model);
    return Model.fromModelName(this, `${idPrefix}GoalSpecModelRef`, model.ref);
  }

  /**
   * API Gateway's own answers in the API's error shape (`{error:{code, message}}`), so a client
   * reads every 4xx the same way whether the gateway or the function sent it. Gateway responses
   * allow no escaping: only `$context.error.messageString` (already a quoted JSON string) and
   * plain identifiers go into the templates, never the path or a header.
   */
  private shapeGatewayErrors(api: RestApi, jwt: boolean): void {
    const template = (code: string, message = "$context.error.messageString", extra = "") => ({
      "application/json": `{"error":{"code":${code},"message":${message}${extra}},"requestId":"$context.requestId"}`,
    });
    // A body that fails the model: the handler's own parse gives precise issues for what gets through.
    api.addGatewayResponse("BadRequestBody", {
      type: ResponseType.BAD_REQUEST_BODY,
      templates: template('"ValidationError"', undefined, ',"issues":[]'),
    });
    // A signed request for a path no resource serves (methods of a served path reach the handler).
    api.addGatewayResponse("ResourceNotFound", {
      type: ResponseType.RESOURCE_NOT_FOUND,
      templates: template('"RouteNotFound"'),
    });
    // API Gateway cannot tell an unknown path from an unsigned request to an IAM method (both are this 403).
    api.addGatewayResponse("MissingAuthenticationToken", {
      type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
      templates: template(
        '"MissingAuthenticationToken"',
        jwt
          ? '"No route for this method and path, or the request is not signed with SigV4 (the operators\' routes take IAM auth)"'
          : '"No route for this method and path, or the request is not signed with SigV4 (every goals route takes IAM auth)"',
      ),
    });
    // The JWT authorizer refused the token (or the header is no bearer token): 401, as the local API answers.
    api.addGatewayResponse("Unauthorized", {
      type: ResponseType.UNAUTHORIZED,
      templates: template(
        '"Unauthorized"',
        '"Send Authorization: Bearer <token> with a valid, unexpired token of the configured issuer"',
      ),
    });
    // The JWT authorizer's Deny (a valid token of a tenant this deployment does not serve): the code
    // and message it put in its context, as the local API answers them. Only with the authorizer: an
    // IAM method's own denial carries no authorizer context (its ACCESS_DENIED stays Default4xx's).
    if (jwt) {
      api.addGatewayResponse("AccessDenied", {
        type: ResponseType.ACCESS_DENIED,
        statusCode: "403",
        templates: { "application/json": AUTHORIZER_DENIAL_TEMPLATE },
      });
    }
    // Every other gateway 4xx (throttled, bad signature, expired token, too large): its type as the code.
    api.addGatewayResponse("Default4xx", {
      type: ResponseType.DEFAULT_4XX,
      templates: template('"$context.error.responseType"'),
    });
  }

  private acknowledgeNagFindings(api: RestApi, cloudWatchRole: boolean, jwt: boolean): void {
    const reason = jwt
      ? "Every method requires a JWT checked by a Lambda authorizer (any OIDC issuer, Cognito among them: api.auth.jwt), " +
        "or IAM (SigV4) for the operators' route; a Cognito authorizer would tie the API to one user pool."
      : "Every method requires IAM (SigV4) authorization, which DESIGN §6 allows beside JWT: callers are SDK, CLI and " +
        "service clients with AWS credentials, and the tenant comes from the IAM caller; no Cognito user pool is involved.";
    for (const method of api.methods) acknowledgeNag(method, "AwsSolutions-COG4", reason);
    acknowledgeNag(
      api.deploymentStage,
      "AwsSolutions-APIG3",
      `Only ${jwt ? "requests with a token the authorizer accepts (or IAM-signed ones)" : "IAM-signed requests"} reach the integration and the stage is throttled; a WAF web ACL is an account perimeter ` +
        "decision (and a monthly cost) left to the deployer, who can associate one with this stage.",
    );
    if (cloudWatchRole) {
      // The policy RestApi attaches to that role, named as RestApi names it.
      const { managedPolicyArn } = ManagedPolicy.fromAwsManagedPolicyName(
        "service-role/AmazonAPIGatewayPushToCloudWatchLogs",
      );
      acknowledgeNag(
        api,
        `AwsSolutions-IAM4[Policy::${nagReferenceName(this, managedPolicyArn)}]`,
        "API Gateway's account-level CloudWatch role, which stage execution logging requires; AWS maintains the policy for exactly this purpose.",
      );
    }
  }
}

/** The parameters API Gateway checks before the function: path ones required, query and headers optional. */
function requestParametersOf(operation: Operation): Record<string, boolean> {
  const parameters: Record<string, boolean> = {};
  for (const match of operation.path.matchAll(/\{(\w+)\}/g))
    parameters[`method.request.path.${match[1]}`] = true;
  for (const name of Object.keys(operation.query?.shape ?? {}))
    parameters[`method.request.querystring.${name}`] = false;
  if (operation.idempotent) parameters["method.request.header.Idempotency-Key"] = false;
  return parameters;
}

function validateProps(props: GoalsApiProps): void {
  const { stateMachines, stageName, throttlingRateLimit, throttlingBurstLimit } = props;
  const patterns = Object.keys(stateMachines);
  if (patterns.length === 0)
    throw new Error("GoalsApi: stateMachines must hold at least one pattern's state machine");
  for (const pattern of patterns) {
    if (!PATTERNS.some((known) => known === pattern)) {
      throw new Error(
        `GoalsApi: stateMachines has unknown pattern '${pattern}'; known: ${PATTERNS.join(", ")}`,
      );
    }
  }
  if (stageName !== undefined && !Token.isUnresolved(stageName) && !STAGE_NAME_PATTERN.test(stageName)) {
    throw new Error(
      `GoalsApi: stageName must be 1 to 128 characters of A-Z, a-z, 0-9, '-', '_'; got '${stageName}'`,
    );
  }
  for (const [name, value] of [
    ["throttlingRateLimit", throttlingRateLimit],
    ["throttlingBurstLimit", throttlingBurstLimit],
  ] as const) {
    if (value !== undefined && !Token.isUnresolved(value) && !(value > 0 && value <= MAX_RATE_LIMIT)) {
      throw new Error(`GoalsApi: ${name} must be above 0 and at most ${MAX_RATE_LIMIT}; got ${value}`);
    }
  }
  if (
    throttlingBurstLimit !== undefined &&
    !Number.isInteger(throttlingBurstLimit) &&
    !Token.isUnresolved(throttlingBurstLimit)
  ) {
    throw new Error(`GoalsApi: throttlingBurstLimit must be a whole number; got ${throttlingBurstLimit}`);
  }
  if (props.iamBesideJwt === true && props.jwtAuth === undefined) {
    throw new Error("GoalsApi: iamBesideJwt needs jwtAuth, the issuer's settings of the bearer-token API");
  }
  const { maxOpenStreams } = props;
  if (
    maxOpenStreams !== undefined &&
    !(Number.isInteger(maxOpenStreams) && maxOpenStreams >= 1 && maxOpenStreams <= 1000)
  ) {
    throw new Error(`GoalsApi: maxOpenStreams must be a whole number from 1 to 1000; got ${maxOpenStreams}`);
  }
}
