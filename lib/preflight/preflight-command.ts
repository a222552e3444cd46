import type { Command } from "commander";
import type { PreflightFlags, PreflightIo } from "./preflight-action";

/**
 * `goal-loops preflight [--profile P] [--region R] [--config F] [--invoke] [--json]`: read-only checks
 * of the account `cdk deploy` would deploy to, printed as a checklist; exit 1 on any blocker, or
 * when it cannot run at all (no region, no credentials, a bad configuration file).
 */
export function addPreflightCommand(program: Command, io: PreflightIo): void {
  program
    .command("preflight")
    .description(
      "Read-only checks of the target AWS account before `cdk deploy` (bootstrap, API Gateway logging role, model profiles and lifecycle, SES, secrets, approvers, alarm e-mail, MCP URLs); exit 1 on a blocker",
    )
    .option("--profile <name>", "AWS profile to read the account with (default: the SDK's credential chain)")
    .option("--region <region>", "region to check (default: AWS_REGION or the profile's region)")
    .option("--config <file>", "the configuration file (default: goal-loops.config.json, else every default)")
    .option(
      "--invoke",
      "also send one minimal Converse request per configured model and print what it cost",
      false,
    )
    .option("--json", "print the checks as JSON", false)
    .action(async (flags: PreflightFlags) => {
      // The checks, the configuration and the AWS SDK load only when the command runs.
      const { preflight } = await import("./preflight-action");
      process.exitCode = await preflight(flags, io);
    });
}
