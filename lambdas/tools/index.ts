/** Built-in tools, their registry and the ToolRunner the act step uses. */
export * from "./artifact-paths";
export * from "./built-in-tool";
export * from "./built-in-tool-runner";
export * from "./default-tools";
export * from "./http-request";
export * from "./notify";
export * from "./notify-destinations";
export * from "./tool-call-error";
export * from "./tool-outcome";
export * from "./tool-registry";
export * from "./workspace-list";
export * from "./workspace-read";
export * from "./workspace-write";
