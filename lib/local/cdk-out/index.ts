/**
 * cdk-out/: reading cdk.out. Synthesizing it when the app's sources are newer (cdk-out.ts), the
 * stack templates with CloudFormation's intrinsics resolved to local names (stack-template.ts,
 * cfn-intrinsics.ts), and one reader per resource kind: functions, state machines, tables, buckets,
 * event rules, API routes.
 * Not here: running any of it (lambda/, step-functions/, eventbridge/ …).
 */
export * from "./cdk-out";
export * from "./cfn-intrinsics";
export * from "./read-api-routes";
export * from "./read-buckets";
export * from "./read-event-rules";
export * from "./read-functions";
export * from "./read-state-machines";
export * from "./read-tables";
export * from "./stack-template";
