import { App } from "aws-cdk-lib";

/**
 * A bare app for construct tests. CDK's built-in CloudFormation schema validation costs ~12 s on
 * the first synth of a process; the stack test still runs it, on the app `cdk synth` builds.
 */
export function constructTestApp(): App {
  return new App({ builtinCloudFormationValidation: false });
}
