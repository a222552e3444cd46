import type { GoalLoopsConfig } from "../config/goal-loops-config";
import { type AccountReader, describeError } from "./account-reader";
import { blocker, type CheckResult, ok, warn } from "./checklist";

const CHECK = "API Gateway logging role";

/**
 * The goals API's stage writes access and execution logs, which API Gateway refuses ("CloudWatch
 * Logs role ARN must be set in account settings to enable logging") unless the region's account
 * settings name a CloudWatch role. The stack sets it only with `api.manageAccountCloudWatchRole`.
 */
export async function checkApiGatewayRole(
  account: AccountReader,
  config: GoalLoopsConfig,
  region: string,
): Promise<CheckResult> {
  let roleArn: string | undefined;
  try {
    roleArn = await account.apiGatewayCloudWatchRoleArn();
  } catch (error) {
    return blocker(CHECK, `cannot read API Gateway's account settings: ${describeError(error)}`);
  }
  if (config.api.manageAccountCloudWatchRole) {
    return roleArn === undefined
      ? ok(CHECK, "none set; the stack creates it (api.manageAccountCloudWatchRole)")
      : warn(
          CHECK,
          `${roleArn} is set, and the stack replaces it (api.manageAccountCloudWatchRole) for every REST API of the account in ${region}`,
        );
  }
  return roleArn === undefined
    ? blocker(
        CHECK,
        `${region} has none, and the API stage cannot log without it: set it once (see docs/deploy.md: aws apigateway update-account --patch-operations op=replace,path=/cloudwatchRoleArn,value=<role arn>), or let the stack create it (api.manageAccountCloudWatchRole: true)`,
      )
    : ok(CHECK, `${roleArn} (left alone)`);
}
