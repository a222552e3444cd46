import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { JWT_AUTH_ENV } from "../../lambdas/adapters/oidc/jwt-settings";
import { OWNED_SECRETS_ENV } from "../../lambdas/core/operations/secret-age";
import { HANDLER_BUNDLE_FILE, HANDLER_BUNDLES, handlerBundleDir } from "../../lib/constructs/handler-bundles";
import { loadCloudAssembly } from "../../lib/local/cdk-out/cdk-out";
import type { FunctionSpec } from "../../lib/local/shared/cloud-assembly-model";
import { E2E_ASSEMBLY_DIR } from "../e2e/local-stack-harness";

const run = promisify(execFile);

/**
 * Imports the module given as argv[1] and checks that it exports a handler. Nothing else is set
 * up: no `awslambda` global, no Lambda runtime, as in the bench's cold-import probe.
 */
const IMPORT_SCRIPT = `
const module = await import(process.argv[1]);
if (typeof module.handler !== "function") throw new Error("no handler function exported");
`;

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** Which pre-built bundle (dist/lambdas/<name>) a function's asset is, by its content. */
const bundleNameByHash = new Map(
  Object.keys(HANDLER_BUNDLES).map((name) => [
    sha256(join(handlerBundleDir(name as keyof typeof HANDLER_BUNDLES), HANDLER_BUNDLE_FILE)),
    name,
  ]),
);

type BundleName = keyof typeof HANDLER_BUNDLES;

/**
 * The bundles only a configuration option deploys, so the shared end-to-end deployment lacks them:
 * each with the environment that option gives its function.
 */
const OPTION_ONLY_BUNDLES: Partial<Record<BundleName, Readonly<Record<string, string>>>> = {
  // api.auth.mode "jwt"
  "jwt-authorizer": {
    [JWT_AUTH_ENV]: JSON.stringify({ issuer: "https://login.example.com/", audience: "goal-loops" }),
  },
  // an owner in secrets
  "secret-age-probe": {
    [OWNED_SECRETS_ENV]: JSON.stringify([
      { key: "emailLinkKey", secretId: "goal-loops/link", owner: "ops team", rotateAfterDays: 90 },
    ]),
  },
};

/** What importInPlainNode needs of a function: its bundle, handler, environment and name. */
type ImportedFunction = Pick<FunctionSpec, "assetDir" | "handler" | "environment" | "functionName">;

const bundleFile = (fn: ImportedFunction) => join(fn.assetDir, `${fn.handler.split(".")[0]}.mjs`);

/** Imports a function's bundle in a fresh `node` with the function's environment and dummy credentials. */
async function importInPlainNode(fn: ImportedFunction): Promise<string> {
  try {
    await run(process.execPath, ["--input-type=module", "-e", IMPORT_SCRIPT, bundleFile(fn)], {
      env: {
        PATH: process.env.PATH ?? "",
        ...fn.environment,
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "test",
        AWS_SECRET_ACCESS_KEY: "test",
        AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      },
      timeout: 60_000,
    });
    return "imported";
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    return `failed: ${typeof stderr === "string" ? stderr.slice(0, 600) : String(error)}`;
  }
}

describe("every Lambda bundle, outside Lambda", () => {
  // The shared end-to-end deployment holds every handler goal-loops ships (its doors and MCP
  // gateway included) and the example's tool functions, each with its deployed environment.
  const deployed = loadCloudAssembly(E2E_ASSEMBLY_DIR).functions;
  const functions: ImportedFunction[] = [
    ...deployed,
    ...Object.entries(OPTION_ONLY_BUNDLES).map(([name, environment]) => ({
      assetDir: handlerBundleDir(name as BundleName),
      handler: "index.handler",
      environment,
      functionName: `${name} (option only)`,
    })),
  ];

  it("imports in a plain Node process with its deployed environment, without the runtime's globals", async () => {
    // Act: a few at a time, each in a fresh process (the module-level code runs as on a cold start)
    const outcomes: Record<string, string> = {};
    const queue = [...functions];
    const worker = async () => {
      for (let fn = queue.shift(); fn !== undefined; fn = queue.shift()) {
        outcomes[fn.functionName] = await importInPlainNode(fn);
      }
    };
    await Promise.all([worker(), worker(), worker()]);

    // Assess: every bundle goal-loops ships was among them, and each imported
    const covered = new Set(functions.map((fn) => bundleNameByHash.get(sha256(bundleFile(fn)))));
    expect(Object.keys(HANDLER_BUNDLES).filter((name) => !covered.has(name))).toEqual([]);
    expect(outcomes).toEqual(Object.fromEntries(functions.map((fn) => [fn.functionName, "imported"])));
  }, 180_000);
});
