import * as z from "zod";
import { DUPLICATE_ROUTES_METADATA } from "../../config/synth-target";
import type { ApiRouteSpec } from "../shared/cloud-assembly-model";
import { CloudAssemblyError } from "../shared/errors";
import type { StackTemplate } from "./stack-template";

const MethodSchema = z.looseObject({
  HttpMethod: z.string(),
  ResourceId: z.string(),
  RestApiId: z.string(),
  Integration: z.looseObject({ Type: z.string().optional(), Uri: z.string().optional() }).optional(),
});

const ResourceSchema = z.looseObject({ ParentId: z.string(), PathPart: z.string() });

/**
 * REST API (API Gateway v1) methods whose integration is a Lambda proxy (AWS_PROXY), as
 * method + resource path → function. Mock integrations (CORS preflight) are left out, and so are
 * the methods of an API that repeats another's routes (DUPLICATE_ROUTES_METADATA: the bearer-token
 * API of `api.auth.mode: "iam+jwt"`), since the local API serves every kind of caller on one set.
 */
export function readApiRoutes(stack: StackTemplate): ApiRouteSpec[] {
  const paths = resourcePaths(stack);
  const duplicates = new Set(
    stack
      .resourcesOfType("AWS::ApiGateway::RestApi")
      .filter(([, resource]) => resource.Metadata?.[DUPLICATE_ROUTES_METADATA] !== undefined)
      .map(([logicalId]) => logicalId),
  );
  return stack.resourcesOfType("AWS::ApiGateway::Method").flatMap(([logicalId, resource]) => {
    const { HttpMethod, ResourceId, RestApiId, Integration } = resource.Properties ?? {};
    const parsed = MethodSchema.safeParse(
      stack.resolve({ HttpMethod, ResourceId, RestApiId, Integration }, `${logicalId} Properties`),
    );
    if (!parsed.success) {
      throw new CloudAssemblyError(
        `${stack.stackName}/${logicalId}: unexpected method: ${parsed.error.message}`,
      );
    }
    const method = parsed.data;
    if (method.Integration?.Type !== "AWS_PROXY") return [];
    if (duplicates.has(method.RestApiId)) return [];
    // `…/2015-03-31/functions/<arn>/invocations`, or `…/2021-11-15/functions/<arn>/response-streaming-invocations`.
    const uri = /\/functions\/(.+?)\/(response-streaming-invocations|invocations)$/.exec(
      method.Integration.Uri ?? "",
    );
    const functionArn = uri?.[1];
    const resourcePath = paths.get(method.ResourceId);
    if (functionArn === undefined || resourcePath === undefined) {
      throw new CloudAssemblyError(
        `${stack.stackName}/${logicalId}: cannot tell the path or the Lambda function of this API method`,
      );
    }
    return [
      {
        apiLogicalId: method.RestApiId,
        method: method.HttpMethod.toUpperCase(),
        resourcePath,
        functionArn,
        streaming: uri?.[2] === "response-streaming-invocations",
      },
    ];
  });
}

/** Resource id → full path, walking ParentId up to the API's root resource (`<api>/` locally). */
function resourcePaths(stack: StackTemplate): Map<string, string> {
  const parents = new Map<string, { parentId: string; pathPart: string }>();
  for (const [logicalId, resource] of stack.resourcesOfType("AWS::ApiGateway::Resource")) {
    const { ParentId, PathPart } = resource.Properties ?? {};
    const parsed = ResourceSchema.parse(stack.resolve({ ParentId, PathPart }, `${logicalId} Properties`));
    parents.set(logicalId, { parentId: parsed.ParentId, pathPart: parsed.PathPart });
  }
  const paths = new Map<string, string>();
  for (const [apiId] of stack.resourcesOfType("AWS::ApiGateway::RestApi")) paths.set(`${apiId}/`, "/");
  const pathOf = (id: string, depth: number): string | undefined => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const node = parents.get(id);
    if (node === undefined || depth > 64) return undefined;
    const parent = pathOf(node.parentId, depth + 1);
    if (parent === undefined) return undefined;
    const full = `${parent === "/" ? "" : parent}/${node.pathPart}`;
    paths.set(id, full);
    return full;
  };
  for (const id of parents.keys()) pathOf(id, 0);
  return paths;
}
