/**
 * What the package exports for a CDK app of one's own: the `GoalLoops` construct, the stack
 * `cdk deploy` uses, and the configuration's schema, types and loader (`goal-loops.config.json`);
 * and for a service that calls a deployed stack: the typed client of its API (`GoalLoopsClient`).
 */

export type { GoalEvent } from "../lambdas/core/goal/goal-event";
export type { GoalSnapshot } from "../lambdas/core/goal/goal-record";
export { OPERATIONS, type OperationId } from "../lambdas/handlers/api/contract/operations";
export {
  type AcceptedGoal,
  ApiValidationError,
  ApprovalClosedApiError,
  type ApprovalView,
  type EventPage,
  type GoalDetails,
  GoalLoopsApiError,
  GoalLoopsClient,
  type GoalLoopsClientOptions,
  type GoalSpecInput,
  InvalidStatusApiError,
  NotFoundApiError,
  type OperationAnswer,
  type OperationInput,
  type RetryPolicy,
  ServerApiError,
  SigningSetupError,
  ThrottledApiError,
  UnexpectedAnswerError,
} from "./client/index";
export type {
  ApiConfig,
  ApiThrottlingConfig,
  DataConfig,
  LogsConfig,
  RemovalChoice,
} from "./config/deployment-config";
export {
  type ApprovalsConfig,
  DEFAULT_FAST_MODEL_ID,
  DEFAULT_HEAVY_MODEL_ID,
  type EmailConfig,
  type GoalLoopsConfig,
  type GoalLoopsConfigInput,
  GoalLoopsConfigSchema,
  type HttpConfig,
  type ModelsConfig,
  type PayloadsConfig,
  type RoleThinkingConfig,
  type SlackConfig,
} from "./config/goal-loops-config";
export { loadConfigFile } from "./config/load-config";
export { ConfigError } from "./config/parse-settings";
export { GoalLoops, type GoalLoopsProps } from "./goal-loops";
export { GOAL_LOOPS_OUTPUTS, GoalLoopsStack, type GoalLoopsStackProps } from "./goal-loops-stack";
