import { ValidationError } from "../core/goal/errors";
import type { JsonValue } from "../core/goal/goal-change";
import { clip } from "../core/goal/text";
import { parseOrThrow } from "../core/goal/validation";
import type { ToolCompensators } from "../core/loop/revisions/compensate";
import * as z from "../core/zod";
import type { JsonObject } from "./built-in-tool";
import type { LambdaInvoker } from "./lambda-tool";

/** `TOOL_COMPENSATORS`: each user tool with a `compensate` function, by name, its function's ARN. */
export const CompensatorManifestSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.record(z.string().check(z.minLength(1)), z.string().check(z.minLength(1))),
);

const CompensateErrorSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({ error: z.object({ name: z.string(), message: z.string() }) }),
);

/**
 * The user tools' `compensate` functions (DESIGN §6): each gets the call to undo —
 * `{tool, input, result, goalId, runId, toolUseId, idempotencyKey, tenantId}` — and answers any
 * JSON when it undid it, or `{error: {name, message}}`. A throw or timeout is a failed undo too;
 * none of them stops the goal: the corrective revision's event says what happened.
 */
export function lambdaCompensators(
  manifest: Readonly<Record<string, string>>,
  invoker: LambdaInvoker,
): ToolCompensators | undefined {
  if (Object.keys(manifest).length === 0) return undefined;
  return {
    has: (tool) => Object.hasOwn(manifest, tool),
    async compensate(request) {
      const functionArn = manifest[request.tool];
      if (functionArn === undefined)
        return { ok: false, error: `tool '${request.tool}' has no compensate function` };
      const event: JsonObject = { ...request };
      const answer = await invoker.invoke(functionArn, event);
      if (answer.functionError !== undefined) {
        const payload = answer.payload as { errorMessage?: unknown } | null;
        return {
          ok: false,
          error: clip(`${answer.functionError}: ${String(payload?.errorMessage ?? "no message")}`, 2000),
        };
      }
      const declared = CompensateErrorSchema.safeParse(answer.payload);
      if (declared.success)
        return {
          ok: false,
          error: clip(`${declared.data.error.name}: ${declared.data.error.message}`, 2000),
        };
      return { ok: true, value: (answer.payload ?? null) as JsonValue };
    },
  };
}

/** The manifest in `TOOL_COMPENSATORS`, or a ValidationError naming what is wrong with it. */
export function parseCompensatorManifest(text: string | undefined): Record<string, string> {
  if (text === undefined || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError("TOOL_COMPENSATORS is not JSON", [
      { path: "TOOL_COMPENSATORS", message: "not JSON" },
    ]);
  }
  return parseOrThrow(CompensatorManifestSchema, value, "TOOL_COMPENSATORS");
}
