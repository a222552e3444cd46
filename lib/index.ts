/**
 * What the package exports for a CDK app of one's own: the `GoalLoops` construct, the stack
 * `cdk deploy` uses, and the configuration's schema, types and loader (`goal-loops.config.json`).
 */

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
