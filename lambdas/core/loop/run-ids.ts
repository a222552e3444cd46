import type { IdSource } from "./loop-deps";

/**
 * The run after `runId`: `r1` → `r2`. Any id ending in digits counts on from them (`run-9` →
 * `run-10`); any other id gets `-2`. Deterministic, so a retried ContinueAsNew names the same run.
 */
export function nextRunId(runId: string): string {
  const match = /^(.*?)(\d+)$/.exec(runId);
  if (!match) return `${runId}-2`;
  const [, prefix = "", digits = "0"] = match;
  return `${prefix}${Number.parseInt(digits, 10) + 1}`;
}

export const sequentialRunIds: IdSource = { nextRunId };
