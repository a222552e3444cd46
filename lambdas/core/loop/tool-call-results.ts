import type { ToolResultObservation } from "../goal/evidence/cycle-observations";
import type { StepRecord } from "../ports/step-log";

/** One call of a logged step, with what the tool runner recorded of it and its result as text. */
export interface CallResult {
  readonly tool: string;
  readonly observation: ToolResultObservation;
  readonly text: string;
}

function jsonObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The error of one call, by name: the tool runner's (`{error}` in the result), or an HTTP status a
 * tool reported as its answer (`http_request` answers 503 with success: the call worked, the
 * service did not). Undefined for a call that did its job.
 */
export function errorNameOf(result: CallResult): string | undefined {
  const json = jsonObject(result.observation.resultJson);
  if (result.observation.status === "error") {
    return typeof json?.error === "string" ? json.error : (/^(\w+):/.exec(result.text)?.[1] ?? "ToolError");
  }
  const status = json?.status ?? json?.statusCode;
  return typeof status === "number" && status >= 400 ? `HttpStatus${status}` : undefined;
}

/** The step's calls in the model's order, each with its recorded result. */
export function callResults(logged: StepRecord): CallResult[] {
  return logged.turn.content.flatMap((block) => {
    if (!("toolUse" in block)) return [];
    const index = logged.toolResults.findIndex((result) => result.toolUseId === block.toolUse.toolUseId);
    const observation = logged.observations.toolResults[index];
    const result = logged.toolResults[index];
    if (!observation || !result) return [];
    const text = result.content
      .map((part) => ("text" in part ? part.text : JSON.stringify(part.json)))
      .join("\n");
    return [{ tool: block.toolUse.name, observation, text }];
  });
}
