import { Aws, Fn } from "aws-cdk-lib";

/**
 * The first 8 hex digits of the stack's id (`…:stack/<name>/<uuid>`): different for every stack
 * instance, even one created again under the same name after a `cdk destroy`. A physical name that
 * may outlive its stack (a retained log group) carries it, so the next stack never collides with
 * what the last one left behind. Resolved by CloudFormation at deploy time.
 */
export function stackInstanceId(): string {
  return Fn.select(0, Fn.split("-", Fn.select(2, Fn.split("/", Aws.STACK_ID))));
}
