import { Option } from "commander";
import type { GoalLoopsClient } from "../../client/index";

/** Where a command sends its requests: the local stack on `port`, or a deployed API (`--api`). */
export interface ApiTarget {
  readonly port: number;
  /** A deployed stack's API URL (its `ApiUrl` output); requests are signed with SigV4. */
  readonly api?: string;
  readonly profile?: string;
  readonly region?: string;
  /** A bearer token (`--token`, GOAL_LOOPS_TOKEN): sent instead of a SigV4 signature, locally too. */
  readonly token?: string;
}

export function apiOption() {
  return new Option(
    "--api <url>",
    "a deployed stack's API URL (the ApiUrl output); requests are signed with your AWS credentials",
  );
}

export function profileOption() {
  return new Option(
    "--profile <profile>",
    "the AWS profile to sign with (default: the SDK's credential chain)",
  );
}

export function tokenOption() {
  return new Option(
    "--token <jwt>",
    "a bearer token of the API's OIDC issuer (locally: GET /_local/token?tenant=…), sent instead of a SigV4 signature",
  ).env("GOAL_LOOPS_TOKEN");
}

export function regionOption() {
  return new Option("--region <region>", "the region to sign for, when --api is a custom domain");
}

/**
 * The client for a target: with a bearer token when one is given (`--token`, GOAL_LOOPS_TOKEN),
 * else unsigned to the local stack (or any loopback URL) and SigV4-signed to a deployed API. Undefined, with the reason on stderr, when signing cannot be set up.
 */
export async function clientFor(target: ApiTarget): Promise<GoalLoopsClient | undefined> {
  // Loaded when a command runs, not when the CLI only prints its help.
  const { GoalLoopsClient } = await import("../../client/index");
  const url = target.api ?? `http://127.0.0.1:${target.port}`;
  if (target.token !== undefined) {
    const { BadTokenError, bearerFetch } = await import("../../client/bearer-fetch");
    try {
      return new GoalLoopsClient(url, { fetch: bearerFetch(target.token) });
    } catch (error) {
      if (!(error instanceof BadTokenError)) throw error;
      process.stderr.write(`${error.message}\n`);
      return undefined;
    }
  }
  if (target.api === undefined) return new GoalLoopsClient(url);
  // The signer and the credential chain load only for a deployed API: local commands start faster.
  const { SigningSetupError, signedFetch } = await import("../../client/index");
  try {
    return new GoalLoopsClient(target.api, {
      fetch: signedFetch({
        apiUrl: target.api,
        ...(target.profile === undefined ? {} : { profile: target.profile }),
        ...(target.region === undefined ? {} : { region: target.region }),
      }),
    });
  } catch (error) {
    if (!(error instanceof SigningSetupError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return undefined;
  }
}
