/**
 * cdk-out/: reading cdk.out. Which stacks to run, found by the GoalLoops construct's metadata
 * (cdk-out.ts); synthesizing the app when a file it is made of is newer (ensure-synthesized.ts,
 * with what cdk.json says the app is and is made of: app-sources.ts); the stack templates with
 * CloudFormation's intrinsics resolved to local names (stack-template.ts, cfn-intrinsics.ts); and
 * one reader per resource kind: functions, state machines, tables, buckets, event rules, API routes;
 * the deploys kept by cdk.out in the state folder, and the newest synth read with them
 * (kept-versions.ts, versioned-assembly.ts).
 * Not here: running any of it (lambda/, step-functions/, eventbridge/ …).
 */
export * from "./app-sources";
export * from "./cdk-out";
export * from "./cfn-intrinsics";
export * from "./ensure-synthesized";
export * from "./kept-versions";
export * from "./read-api-routes";
export * from "./read-buckets";
export * from "./read-event-rules";
export * from "./read-functions";
export * from "./read-state-machines";
export * from "./read-tables";
export * from "./stack-template";
export * from "./versioned-assembly";
