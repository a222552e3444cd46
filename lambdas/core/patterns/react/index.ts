/**
 * patterns/react/: ReAct's own step, VerifyAndReason (verify the last step, reason, and act at once
 * when no call needs an approval), and the reason prompt.
 * Not here: Act, the gates, verify, LoadGoal and ContinueAsNew, which every pattern shares (loop/).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./reason-prompt";
export * from "./verify-and-reason";
