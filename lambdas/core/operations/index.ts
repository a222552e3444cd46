/**
 * operations/: what the deployment measures about itself for its operators, apart from goals: how
 * old each owned secret is, and when it is overdue for rotation (`secrets.<name>.rotateAfterDays`),
 * one rule for `goal-loops preflight` and the monthly secret-age alarm.
 * Not here: which Secrets Manager date counts as the value's last change (lambdas/adapters/secrets),
 * the alarms themselves (lib/constructs), or goal metrics (lambdas/adapters/metrics).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./secret-age";
