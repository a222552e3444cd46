import { ValidationError } from "../goal/errors";
import type { GoalSpec } from "../goal/goal-spec";

/**
 * Whether `modelId` is on the allow-list: an exact entry, or a `prefix*` entry it starts with (the
 * local runtime admits `scripted:*` and `local:*`).
 */
export function isModelAllowed(modelId: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) =>
    entry.endsWith("*") ? modelId.startsWith(entry.slice(0, -1)) : modelId === entry,
  );
}

/**
 * Refuses a GoalSpec whose `models` names a model outside the deployment's allow-list, with one issue
 * per offending role (`models.plan`), before the goal exists: IAM would refuse the call anyway, but
 * only after the goal had started and paid for its other calls.
 */
export function assertModelsAllowed(spec: Pick<GoalSpec, "models">, allowed: readonly string[]): void {
  const { thinking: _thinking, ...modelIds } = spec.models ?? {};
  const issues = Object.entries(modelIds).flatMap(([role, modelId]) =>
    modelId === undefined || isModelAllowed(modelId, allowed)
      ? []
      : [
          {
            path: `models.${role}`,
            message: `'${modelId}' is not an allowed model; allowed: ${allowed.join(", ")}`,
          },
        ],
  );
  if (issues.length > 0) {
    throw new ValidationError(
      `Invalid GoalSpec: ${issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}`,
      issues,
    );
  }
}
