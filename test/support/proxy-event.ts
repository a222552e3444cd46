import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEvent } from "aws-lambda";

export interface ProxyEventOptions {
  readonly method: string;
  /** The path as the handler sees it (stage stripped), e.g. `/slack/interactions`. */
  readonly path: string;
  /** The API Gateway resource pattern, e.g. `/email/approvals/{approvalId}`. */
  readonly resource: string;
  readonly pathParameters?: Record<string, string> | null;
  readonly headers?: Record<string, string>;
  readonly query?: Record<string, string> | null;
  readonly body?: string | null;
  /** The caller as API Gateway reports it (unauthenticated doors: only its address and agent). */
  readonly sourceIp: string;
  readonly userAgent: string;
  readonly now: Date;
}

/** An API Gateway REST (v1) proxy event as stage `v1` delivers it to an unauthenticated route. */
export function proxyEvent(options: ProxyEventOptions): APIGatewayProxyEvent {
  return {
    httpMethod: options.method,
    path: options.path,
    resource: options.resource,
    pathParameters: options.pathParameters ?? null,
    stageVariables: null,
    headers: options.headers ?? {},
    multiValueHeaders: {},
    queryStringParameters: options.query ?? null,
    multiValueQueryStringParameters: null,
    body: options.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      authorizer: null,
      protocol: "HTTP/1.1",
      httpMethod: options.method,
      path: `/v1${options.path}`,
      stage: "v1",
      requestId: `req-${randomUUID()}`,
      requestTimeEpoch: options.now.getTime(),
      resourceId: "res",
      resourcePath: options.resource,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: options.sourceIp,
        user: null,
        userAgent: options.userAgent,
        userArn: null,
      },
    },
  };
}
