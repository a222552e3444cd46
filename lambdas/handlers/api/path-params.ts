import { parseOrThrow } from "../../core/goal/validation";
import * as z from "../../core/zod";
import { PATH_PARAMETERS } from "./contract/operations";

/**
 * The path parameters of the routes' templates, each in the shape the system issues. Checked
 * before a route runs, so an id the system never issued (2,000 characters, a key separator, a
 * path trick) is a 400 naming the parameter and never reaches a DynamoDB key (at most 2,048 bytes).
 */
const PathParamsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    goalId: z.optional(PATH_PARAMETERS.goalId),
    approvalId: z.optional(PATH_PARAMETERS.approvalId),
    runId: z.optional(PATH_PARAMETERS.runId),
    tenantId: z.optional(PATH_PARAMETERS.tenantId),
  }),
);

/** The route's path parameters, or a ValidationError naming each malformed one (`goalId`, `approvalId`, `runId`, `tenantId`). */
export function checkPathParams(params: Readonly<Record<string, string>>): Record<string, string> {
  const checked = parseOrThrow(PathParamsSchema, params, "path");
  return Object.fromEntries(
    Object.entries(checked).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
