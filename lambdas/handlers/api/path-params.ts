import * as z from "zod";
import { parseOrThrow } from "../../core/goal/validation";
import { PATH_PARAMETERS } from "./contract/operations";

/**
 * The path parameters of the routes' templates, each in the shape the system issues. Checked
 * before a route runs, so an id the system never issued (2,000 characters, a key separator, a
 * path trick) is a 400 naming the parameter and never reaches a DynamoDB key (at most 2,048 bytes).
 */
const PathParamsSchema = z.strictObject({
  goalId: PATH_PARAMETERS.goalId.optional(),
  approvalId: PATH_PARAMETERS.approvalId.optional(),
  runId: PATH_PARAMETERS.runId.optional(),
  tenantId: PATH_PARAMETERS.tenantId.optional(),
});

/** The route's path parameters, or a ValidationError naming each malformed one (`goalId`, `approvalId`, `runId`, `tenantId`). */
export function checkPathParams(params: Readonly<Record<string, string>>): Record<string, string> {
  const checked = parseOrThrow(PathParamsSchema, params, "path");
  return Object.fromEntries(
    Object.entries(checked).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
