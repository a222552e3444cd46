import * as z from "zod";
import type { EventBusSpec, EventRuleSpec, EventTargetSpec } from "../shared/cloud-assembly-model";
import { CloudAssemblyError } from "../shared/errors";
import { isJsonObject } from "../shared/json";
import type { StackTemplate } from "./stack-template";

const TargetSchema = z.looseObject({
  Id: z.string(),
  Arn: z.string(),
  Input: z.string().optional(),
  InputPath: z.string().optional(),
  InputTransformer: z
    .looseObject({ InputPathsMap: z.record(z.string(), z.string()).default({}), InputTemplate: z.string() })
    .optional(),
});

const RuleSchema = z.looseObject({
  Name: z.string().optional(),
  EventBusName: z.string().optional(),
  EventPattern: z.unknown().optional(),
  State: z.string().default("ENABLED"),
  Targets: z.array(TargetSchema).default([]),
});

export function readEventBuses(stack: StackTemplate): EventBusSpec[] {
  return stack.resourcesOfType("AWS::Events::EventBus").map(([logicalId]) => {
    const physical = stack.physicalIds.get(logicalId);
    return { logicalId, name: physical?.ref ?? logicalId, arn: physical?.attributes.Arn ?? "" };
  });
}

/**
 * EventBridge rules with an event pattern (scheduled rules have none and are left out) and their
 * targets, resolved to local ARNs.
 */
export function readEventRules(stack: StackTemplate): EventRuleSpec[] {
  return stack.resourcesOfType("AWS::Events::Rule").flatMap(([logicalId, resource]) => {
    const { Name, EventBusName, EventPattern, State, Targets } = resource.Properties ?? {};
    if (EventPattern === undefined) return [];
    const resolved = stack.resolve(
      { Name, EventBusName, EventPattern, State, Targets },
      `${logicalId} Properties`,
    );
    const parsed = RuleSchema.safeParse(resolved);
    const eventPattern = isJsonObject(resolved) ? resolved.EventPattern : undefined;
    if (!parsed.success || !isJsonObject(eventPattern)) {
      const why = parsed.error?.message ?? "EventPattern is not an object";
      throw new CloudAssemblyError(`${stack.stackName}/${logicalId}: unexpected rule properties: ${why}`);
    }
    const rule = parsed.data;
    return [
      {
        stackName: stack.stackName,
        logicalId,
        name: stack.physicalIds.get(logicalId)?.ref ?? logicalId,
        // A bus is named by name or ARN; the default bus when none is named.
        eventBusName: (rule.EventBusName ?? "default").replace(/^arn:.*:event-bus\//, ""),
        eventPattern,
        enabled: rule.State === "ENABLED",
        targets: rule.Targets.map(toTarget),
      },
    ];
  });
}

function toTarget(target: z.infer<typeof TargetSchema>): EventTargetSpec {
  const kind = /^arn:[^:]+:lambda:[^:]*:[^:]*:function:/.test(target.Arn)
    ? "lambda"
    : /^arn:[^:]+:states:[^:]*:[^:]*:stateMachine:/.test(target.Arn)
      ? "state-machine"
      : "unsupported";
  return {
    id: target.Id,
    arn: target.Arn,
    kind,
    ...(target.Input === undefined ? {} : { input: target.Input }),
    ...(target.InputPath === undefined ? {} : { inputPath: target.InputPath }),
    ...(target.InputTransformer === undefined
      ? {}
      : {
          inputTransformer: {
            inputPathsMap: target.InputTransformer.InputPathsMap,
            inputTemplate: target.InputTransformer.InputTemplate,
          },
        }),
  };
}
