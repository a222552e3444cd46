import { Stack } from "aws-cdk-lib";
import { Grant, type IGrantable } from "aws-cdk-lib/aws-iam";
import type { Construct } from "constructs";
import type { GoalLoopFunction } from "./goal-loop-function";
import { acknowledgeWildcardResource, nagReferenceName } from "./nag-acknowledgments";

/**
 * Geography prefixes of Bedrock's cross-region inference profiles (`us.anthropic.…`). A profile
 * routes each request to a foundation model in any region of its geography.
 */
const INFERENCE_PROFILE_PREFIX = /^(us|us-gov|eu|apac|jp|au|ca|global)\./;
const MODEL_ID_PATTERN = /^[a-z0-9][a-z0-9-]*\.[A-Za-z0-9][A-Za-z0-9.:_-]{0,200}$/;

/** The Bedrock model id syntax check the constructs apply to their props: `provider.model`, optionally geo-prefixed. */
export function isBedrockModelId(modelId: string): boolean {
  return MODEL_ID_PATTERN.test(modelId);
}

/**
 * The resources `bedrock:InvokeModel` must allow to call a model id. A foundation model id is one
 * ARN in this stack's region. An inference profile id needs the profile in this account (any
 * region: the profile is called where the stack runs) and the foundation model behind it in every
 * region the profile may route to, hence a region wildcard.
 */
function bedrockModelArns(scope: Construct, modelId: string): string[] {
  const stack = Stack.of(scope);
  const profile = INFERENCE_PROFILE_PREFIX.exec(modelId);
  if (!profile) {
    return [
      stack.formatArn({
        service: "bedrock",
        account: "",
        resource: "foundation-model",
        resourceName: modelId,
      }),
    ];
  }
  const foundationModelId = modelId.slice(profile[0].length);
  return [
    stack.formatArn({
      service: "bedrock",
      region: "*",
      resource: "inference-profile",
      resourceName: modelId,
    }),
    stack.formatArn({
      service: "bedrock",
      region: "*",
      account: "",
      resource: "foundation-model",
      resourceName: foundationModelId,
    }),
  ];
}

/**
 * Lets the grantee call the given models with Converse (which needs `bedrock:InvokeModel`), and
 * no other model. Bedrock has no grant method of its own; this is one.
 */
function grantInvokeModels(scope: Construct, grantee: IGrantable, modelIds: readonly string[]): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ["bedrock:InvokeModel"],
    resourceArns: [...new Set(modelIds)].flatMap((modelId) => bedrockModelArns(scope, modelId)),
  });
}

/**
 * Lets a step call the allowed models (`grantInvokeModels`) and acknowledges the region wildcard an
 * inference profile needs, once per wildcard ARN, with the reason.
 */
export function allowModels(scope: Construct, fn: GoalLoopFunction, modelIds: readonly string[]): void {
  grantInvokeModels(scope, fn, modelIds);
  const wildcardArns = modelIds
    .flatMap((modelId) => bedrockModelArns(scope, modelId))
    .filter((arn) => nagReferenceName(scope, arn).includes("*"));
  for (const arn of wildcardArns) {
    acknowledgeWildcardResource(
      fn.role,
      arn,
      "A cross-region inference profile may serve a request from its foundation model in any region of its geography, " +
        "so the profile and that model are allowed in every region; the model id itself is exact and allow-listed.",
    );
  }
}
