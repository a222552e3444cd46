import { type AccountReader, describeError } from "./account-reader";
import { blocker, type CheckResult, ok, warn } from "./checklist";

/**
 * The bootstrap version the synthesized stack asks for (`requiresBootstrapStackVersion` of its
 * cloud assembly; the CLI synth test checks the two agree): below it, `cdk deploy` refuses.
 */
export const REQUIRED_BOOTSTRAP_VERSION = 6;
/** The version of the bootstrap template the pinned aws-cdk CLI (2.1148) deploys. */
export const CURRENT_BOOTSTRAP_VERSION = 33;
/** The default qualifier's version parameter, which `cdk bootstrap` writes. */
export const BOOTSTRAP_VERSION_PARAMETER = "/cdk-bootstrap/hnb659fds/version";

const CHECK = "CDK bootstrap";

/** Whether the region is bootstrapped for `cdk deploy`, read from the bootstrap's SSM parameter. */
export async function checkBootstrap(account: AccountReader, region: string): Promise<CheckResult> {
  const bootstrapCommand = `npx cdk bootstrap aws://<account>/${region}`;
  let parameter: Awaited<ReturnType<AccountReader["parameter"]>>;
  try {
    parameter = await account.parameter(BOOTSTRAP_VERSION_PARAMETER);
  } catch (error) {
    return blocker(CHECK, `cannot read ${BOOTSTRAP_VERSION_PARAMETER}: ${describeError(error)}`);
  }
  if (parameter === undefined) {
    return blocker(
      CHECK,
      `${region} is not bootstrapped (no ${BOOTSTRAP_VERSION_PARAMETER}): run ${bootstrapCommand} once`,
    );
  }
  const version = Number(parameter.value);
  const where = parameter.arn === undefined ? "" : ` in account ${accountOf(parameter.arn)}`;
  if (!Number.isInteger(version)) {
    return blocker(CHECK, `${BOOTSTRAP_VERSION_PARAMETER} holds '${parameter.value}', not a version`);
  }
  if (version < REQUIRED_BOOTSTRAP_VERSION) {
    return blocker(
      CHECK,
      `version ${version}${where}; cdk deploy needs ${REQUIRED_BOOTSTRAP_VERSION} or later: run ${bootstrapCommand}`,
    );
  }
  if (version < CURRENT_BOOTSTRAP_VERSION) {
    return warn(
      CHECK,
      `version ${version}${where} deploys (needs ${REQUIRED_BOOTSTRAP_VERSION}); the CLI's template is ${CURRENT_BOOTSTRAP_VERSION}: ${bootstrapCommand} updates it`,
    );
  }
  return ok(CHECK, `version ${version}${where} (cdk deploy needs ${REQUIRED_BOOTSTRAP_VERSION} or later)`);
}

/** `123456789012` of `arn:aws:ssm:eu-west-1:123456789012:parameter/…`. */
function accountOf(arn: string): string {
  return arn.split(":")[4] ?? "?";
}
