import { LambdaIntegration } from "aws-cdk-lib/aws-apigateway";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { GoalLoopFunction, type GoalLoopLogLevel } from "./goal-loop-function";

export interface OpenApiDocumentFunctionProps {
  /** @default "INFO" */
  readonly logLevel?: GoalLoopLogLevel;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * `GET /openapi.json`: the API's OpenAPI document, generated from the zod schemas, from a function
 * of its own. Generating it takes zod's JSON Schema converter, which the goals API function (cold
 * started on every goal submission and read) then no longer loads. The function reads no table
 * and calls no service: its role holds only what every goal-loops function's does (logs, X-Ray).
 */
export class OpenApiDocumentFunction extends Construct {
  readonly handler: GoalLoopFunction;

  constructor(scope: Construct, id: string, props: OpenApiDocumentFunctionProps = {}) {
    super(scope, id);
    this.handler = new GoalLoopFunction(this, "Handler", {
      bundle: "openapi-document",
      description: "goal-loops OpenAPI document: GET /openapi.json, generated from the zod schemas",
      logLevel: props.logLevel,
      logRetention: props.logRetention,
    });
  }

  /**
   * The proxy integration of `GET /openapi.json`, for the API to add as that route's method with the
   * options of every other route (authorized like them: the API's default). One permission for the
   * whole API, as for the goals API function.
   */
  integration(): LambdaIntegration {
    return new LambdaIntegration(this.handler.function, { scopePermissionToMethod: false });
  }
}
