/**
 * The Reflexion loop's own steps (Evaluate, Reflect, Attempt): pure orchestration over the ports.
 * LoadGoal, Act, the approval gate and ContinueAsNew are shared with ReAct (../react).
 */
export * from "./attempt";
export * from "./attempt-prompt";
export * from "./evaluate";
export * from "./lesson";
export * from "./record-lesson";
export * from "./reflect";
export * from "./reflect-prompt";
export * from "./reflexion-deps";
