import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DUPLICATE_ROUTES_METADATA } from "../../lib/config/synth-target";
import { readApiRoutes } from "../../lib/local/cdk-out/read-api-routes";
import { readStackTemplate } from "../../lib/local/cdk-out/stack-template";

/** Two REST APIs with the same route, as `api.auth.mode: "iam+jwt"` synthesizes them. */
function twoApisTemplate(): unknown {
  const api = (duplicateOf?: string) => ({
    Type: "AWS::ApiGateway::RestApi",
    Properties: { Name: "goals" },
    ...(duplicateOf === undefined ? {} : { Metadata: { [DUPLICATE_ROUTES_METADATA]: duplicateOf } }),
  });
  const goals = (restApi: string) => ({
    Type: "AWS::ApiGateway::Resource",
    Properties: {
      ParentId: { "Fn::GetAtt": [restApi, "RootResourceId"] },
      PathPart: "goals",
      RestApiId: { Ref: restApi },
    },
  });
  const getGoals = (restApi: string, resource: string, authorizationType: string) => ({
    Type: "AWS::ApiGateway::Method",
    Properties: {
      HttpMethod: "GET",
      ResourceId: { Ref: resource },
      RestApiId: { Ref: restApi },
      AuthorizationType: authorizationType,
      Integration: {
        Type: "AWS_PROXY",
        Uri: {
          "Fn::Join": [
            "",
            [
              "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/",
              { "Fn::GetAtt": ["Handler", "Arn"] },
              "/invocations",
            ],
          ],
        },
      },
    },
  });
  return {
    Resources: {
      Handler: { Type: "AWS::Lambda::Function", Properties: { Handler: "index.handler" } },
      IamApi: api(),
      IamGoals: goals("IamApi"),
      IamGetGoals: getGoals("IamApi", "IamGoals", "AWS_IAM"),
      JwtApi: api("IamApi"),
      JwtGoals: goals("JwtApi"),
      JwtGetGoals: getGoals("JwtApi", "JwtGoals", "CUSTOM"),
    },
  };
}

describe("readApiRoutes", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "goal-loops-read-api-routes-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("serves one set of routes: an API marked as repeating another's routes is skipped", () => {
    // Prepare
    const templateFile = path.join(dir, "two-apis.template.json");
    writeFileSync(templateFile, JSON.stringify(twoApisTemplate()));

    // Act
    const routes = readApiRoutes(readStackTemplate("TwoApis", templateFile));

    // Assess
    expect(routes.map((route) => `${route.apiLogicalId} ${route.method} ${route.resourcePath}`)).toEqual([
      "IamApi GET /goals",
    ]);
  });
});
