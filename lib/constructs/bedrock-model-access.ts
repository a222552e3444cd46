import { Stack } from "aws-cdk-lib";
import { Grant, type IGrantable } from "aws-cdk-lib/aws-iam";
import type { Construct } from "constructs";
import { parseModelId } from "../config/bedrock-model-catalog";
import type { GoalLoopFunction } from "./goal-loop-function";
import { acknowledgeWildcardResource, nagReferenceName } from "./nag-acknowledgments";

const MODEL_ID_PATTERN = /^[a-z0-9][a-z0-9-]*\.[A-Za-z0-9][A-Za-z0-9.:_-]{0,200}$/;

/** The Bedrock model id syntax check the constructs apply to their props: `provider.model`, optionally geo-prefixed. */
export function isBedrockModelId(modelId: string): boolean {
  return MODEL_ID_PATTERN.test(modelId);
}

/** What `bedrock:InvokeModel` must allow to call one model id, statement by statement. */
interface ModelGrant {
  readonly resourceArns: string[];
  readonly conditions?: Record<string, Record<string, unknown>>;
}

/**
 * The grants that let a caller use `modelId`, and nothing else (AWS's policy for cross-region
 * inference):
 * - a foundation model id: that model in this stack's region, on demand;
 * - an inference profile id: the profile in this region and account (where the call is made), and
 *   its foundation model in every region the profile may route to, but only when the request comes
 *   through that profile (`bedrock:InferenceProfileArn`). A geographic profile routes inside its
 *   geography, whose regions change: hence a region wildcard. A `global.` profile is also authorized
 *   against the region-less foundation-model ARN (`arn:aws:bedrock:::foundation-model/…`).
 */
function modelGrants(scope: Construct, modelId: string): ModelGrant[] {
  const stack = Stack.of(scope);
  const { geography, foundationModelId } = parseModelId(modelId);
  const foundationModel = (region: string) =>
    stack.formatArn({
      service: "bedrock",
      region,
      account: "",
      resource: "foundation-model",
      resourceName: foundationModelId,
    });
  if (geography === undefined) return [{ resourceArns: [foundationModel(stack.region)] }];
  const profileArn = stack.formatArn({
    service: "bedrock",
    resource: "inference-profile",
    resourceName: modelId,
  });
  return [
    { resourceArns: [profileArn] },
    {
      resourceArns: [foundationModel("*"), ...(geography === "global" ? [foundationModel("")] : [])],
      conditions: { StringEquals: { "bedrock:InferenceProfileArn": profileArn } },
    },
  ];
}

/**
 * Lets the grantee call the given models with Converse (which needs `bedrock:InvokeModel`), and
 * no other model. Bedrock has no grant method of its own; this is one.
 */
function grantInvokeModels(scope: Construct, grantee: IGrantable, modelIds: readonly string[]): void {
  for (const grant of [...new Set(modelIds)].flatMap((modelId) => modelGrants(scope, modelId))) {
    Grant.addToPrincipal({ grantee, actions: ["bedrock:InvokeModel"], ...grant });
  }
}

/**
 * Lets a step call the allowed models (`grantInvokeModels`) and acknowledges the region wildcard an
 * inference profile's foundation model needs, once per wildcard ARN, with the reason.
 */
export function allowModels(scope: Construct, fn: GoalLoopFunction, modelIds: readonly string[]): void {
  grantInvokeModels(scope, fn, modelIds);
  const wildcardArns = modelIds
    .flatMap((modelId) => modelGrants(scope, modelId))
    .flatMap((grant) => grant.resourceArns)
    .filter((arn) => nagReferenceName(scope, arn).includes("*"));
  for (const arn of new Set(wildcardArns)) {
    acknowledgeWildcardResource(
      fn.role,
      arn,
      "A cross-region inference profile may serve a request from its foundation model in any region of its geography, " +
        "so that one model is allowed in every region, and only for requests made through the allow-listed profile " +
        "(condition bedrock:InferenceProfileArn).",
    );
  }
}
