/** One line of the preflight checklist. */
export interface CheckResult {
  /** What was checked, e.g. `CDK bootstrap` or `models.fast`. */
  readonly check: string;
  /** ok: ready; warn: deploys, but read this; blocker: fix before `cdk deploy`; skip: not configured. */
  readonly status: CheckStatus;
  /** What was found and, for a warning or a blocker, what to do. */
  readonly detail: string;
}

export type CheckStatus = "ok" | "warn" | "blocker" | "skip";

export const ok = (check: string, detail: string): CheckResult => ({ check, status: "ok", detail });
export const warn = (check: string, detail: string): CheckResult => ({ check, status: "warn", detail });
export const blocker = (check: string, detail: string): CheckResult => ({ check, status: "blocker", detail });
export const skip = (check: string, detail: string): CheckResult => ({ check, status: "skip", detail });

const MARKS: Readonly<Record<CheckStatus, string>> = {
  ok: "ok     ",
  warn: "warn   ",
  blocker: "BLOCKER",
  skip: "skip   ",
};

/** The checklist as printed: one line per check, its mark, name and detail, then the tally. */
export function formatChecklist(results: readonly CheckResult[]): string[] {
  const width = Math.max(...results.map((result) => result.check.length), 10);
  const lines = results.map(
    (result) => `  ${MARKS[result.status]}  ${result.check.padEnd(width)}  ${result.detail}`,
  );
  const blockers = results.filter((result) => result.status === "blocker").length;
  const warnings = results.filter((result) => result.status === "warn").length;
  const tally = `${blockers} blocker${blockers === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`;
  return [
    ...lines,
    "",
    blockers === 0
      ? `${tally}: ready for npx cdk deploy.`
      : `${tally}: fix the blockers before npx cdk deploy.`,
  ];
}
