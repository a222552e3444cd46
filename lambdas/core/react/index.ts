/**
 * The ReAct loop's steps, one per Lambda task of the state machine: pure orchestration over the
 * ports (goal store, workspace, step log, model, tools, clock, ids). The handlers only wire adapters.
 */
export * from "./act";
export * from "./continue-as-new";
export * from "./judge";
export * from "./load-goal";
export * from "./loop-marker";
export * from "./model-call";
export * from "./react-deps";
export * from "./reason-prompt";
export * from "./record-failure";
export * from "./run-ids";
export * from "./step-result";
export * from "./update-goal";
export * from "./verify-and-reason";
export * from "./verify-step";
