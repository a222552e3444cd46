/**
 * How the `/goal` directive and its `--check` clauses are written, for usage messages: apart from
 * their parsers so that the CLI's help shows them without loading zod.
 */

/** The forms of the `/goal` directive (Slack slash command, API, CLI). */
export const DIRECTIVE_FORMS = [
  "/goal status",
  "/goal add-constraint <text>",
  "/goal redirect <text> [--check <id>: <kind> …]",
] as const;

/** The `--check` forms a directive (and `goal-loops revise --check`) states success checks in. */
export const CHECK_FORMS = [
  "--check <id>: artifact <path> [contains <text>]",
  "--check <id>: tool_result <tool> [success|error] [contains <text>]",
  "--check <id>: approval <prompt>",
  "--check <id>: judge <rubric>",
] as const;
