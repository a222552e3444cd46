/**
 * The Plan-and-Execute loop's steps (Plan, Observe, Execute; LoadGoal, Act and the gates are the
 * shared ones in ../react): pure orchestration over the ports. The handlers only wire adapters.
 */
export * from "./classify";
export * from "./execute";
export * from "./observe";
export * from "./plan";
export * from "./plan-execute-deps";
export * from "./plan-schema";
export * from "./plan-state";
export * from "./replan";
export * from "./step-decision";
