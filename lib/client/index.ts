/**
 * client/: the typed client of the goals API (GoalLoopsClient), its error classes, retry policy,
 * SigV4 signing and bearer tokens (bearer-fetch.ts: `--token`, GOAL_LOOPS_TOKEN). The package exports it; the CLI, the console proxy, the MCP server and the tests
 * call the API through it. Its routes and shapes come from the API's contract
 * (lambdas/handlers/api/contract). Not here: the CLI's commands and views (lib/local/cli).
 */

export type {
  AcceptedGoal,
  ApiErrorBody,
  ApprovalView,
  ControlAccepted,
  EventPage,
  ForkedGoal,
  GoalDetails,
  GoalPage,
  GoalRuns,
  RevisionAccepted,
  RunHistoryPage,
  TenantLimitsAnswer,
  TenantMe,
} from "../../lambdas/handlers/api/contract/response-schemas";
export * from "./bearer-fetch";
export * from "./client-errors";
export * from "./goal-loops-client";
export * from "./retry-policy";
export * from "./sigv4-fetch";
