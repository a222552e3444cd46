/**
 * account/: the AWS account `goal-loops preflight` reads when it points at the local stack: what it
 * describes (local-account.ts: bootstrap, models and their lifecycle, SES, secrets, API Gateway
 * settings, by default or from `--account <file>`) and the endpoint that answers the SDK calls
 * preflight makes (account-endpoint.ts).
 * Not here: the checks themselves (lib/preflight).
 */
export * from "./account-endpoint";
export * from "./local-account";
