import { resolveConfig } from "../config/load-config";
import { ConfigError } from "../config/parse-settings";
import { awsAccountReader, resolveSdkSettings } from "./aws-account-reader";
import { formatChecklist } from "./checklist";
import { runPreflight } from "./run-preflight";

export interface PreflightFlags {
  readonly profile?: string;
  readonly region?: string;
  readonly config?: string;
  readonly invoke: boolean;
  readonly json: boolean;
}

export interface PreflightIo {
  /** The checklist (stdout). */
  readonly write: (line: string) => void;
  /** Why it could not run (stderr). */
  readonly log: (line: string) => void;
}

/** What `goal-loops preflight` does once its flags are parsed (preflight-command.ts); its exit code. */
export async function preflight(flags: PreflightFlags, { write, log }: PreflightIo): Promise<number> {
  // The SDK warns on Node 20 that support ends in 2027; the checklist is not the place for it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  let config: ReturnType<typeof resolveConfig>;
  try {
    config = resolveConfig({ projectDir: process.cwd(), configPath: flags.config });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log(`${error.name}: ${error.message}`);
    return 1;
  }
  const sdk = await resolveSdkSettings(flags.profile);
  const region = flags.region ?? sdk.region;
  if (region === undefined) {
    log("No region: pass --region, or set AWS_REGION (or the profile's region).");
    return 1;
  }
  if (sdk.credentialsProblem !== undefined) {
    log(
      `No AWS credentials for the SDK's credential chain${flags.profile === undefined ? "" : ` (profile ${flags.profile})`}: ${sdk.credentialsProblem}`,
    );
    return 1;
  }
  const results = await runPreflight({
    config: config.config,
    region,
    account: awsAccountReader({ region, ...(flags.profile === undefined ? {} : { profile: flags.profile }) }),
    invoke: flags.invoke,
  });
  const blocked = results.some((result) => result.status === "blocker");
  if (flags.json) {
    write(JSON.stringify({ region, config: config.source, results }, null, 2));
    return blocked ? 1 : 0;
  }
  write(
    `goal-loops preflight: ${region}, configuration ${config.source} (read-only${flags.invoke ? "; one Converse call per model" : ""})`,
  );
  write("");
  for (const line of formatChecklist(results)) write(line);
  return blocked ? 1 : 0;
}
