import { App } from "aws-cdk-lib";

/**
 * A bare app for construct tests. CDK's built-in CloudFormation schema validation costs ~12 s on
 * the first synth of a process; the stack test still runs it, on the app `cdk synth` builds.
 */
export function constructTestApp(): App {
  return new App({ builtinCloudFormationValidation: false });
}

/**
 * The same, and it bundles no Lambda code (`aws:cdk:bundling-stacks` empty): for template
 * assertions on IAM, environment and wiring; the stack test bundles what `cdk synth` does.
 */
export function unbundledTestApp(): App {
  return new App({ builtinCloudFormationValidation: false, context: { "aws:cdk:bundling-stacks": [] } });
}
