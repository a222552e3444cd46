import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { consumerLock, PackageLockSchema } from "./consumer-lock";

const PROJECT_DIR = path.resolve(import.meta.dirname, "../..");

/** The version this repository's lock installs of `name` (what the consumer pins too). */
export function lockedVersion(name: string): string {
  const lock = PackageLockSchema.parse(
    JSON.parse(readFileSync(path.join(PROJECT_DIR, "package-lock.json"), "utf8")),
  );
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (version === undefined) throw new Error(`${name} is not in this repository's lock`);
  return version;
}

/**
 * A platform team's own CDK app, as `cdk init app --language typescript` lays one out (CommonJS,
 * `module: nodenext`, cdk-nag on the app): one stack with a bucket of its own and the loops beside
 * it, the construct taken from the `goal-loops` package only. The five lines a README shows.
 */
const STACK_SOURCE = `import { RemovalPolicy, Stack, type StackProps, Validations } from "aws-cdk-lib";
import { BlockPublicAccess, Bucket, BucketEncryption } from "aws-cdk-lib/aws-s3";
import type { Construct } from "constructs";
import { GoalLoops, type GoalLoopsConfigInput } from "goal-loops";

export class PlatformStack extends Stack {
  readonly loops: GoalLoops;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const reports = new Bucket(this, "Reports", {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(reports).acknowledge({
      id: "AwsSolutions::AwsSolutions-S1",
      reason: "The platform's reports bucket: its access is audited through CloudTrail data events.",
    });
    // The README's props: who may approve, by e-mail.
    const config: GoalLoopsConfigInput = { approvals: { email: { approvers: ["ops@example.com"] } } };
    this.loops = new GoalLoops(this, "Loops", config);
  }
}
`;

const APP_SOURCE = `#!/usr/bin/env node
import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { PlatformStack } from "../lib/platform-stack";

const app = new App();
const { CDK_DEFAULT_ACCOUNT: account, CDK_DEFAULT_REGION: region } = process.env;
new PlatformStack(app, "Platform", account && region ? { env: { account, region } } : {});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
`;

export interface ConsumerProject {
  readonly dir: string;
  /** The packed goal-loops, copied into the project. */
  readonly tarball: string;
}

/**
 * Writes the consumer project into `dir` (an empty folder outside this repository) with the packed
 * tarball copied in and a lock made of this repository's lock, ready for `npm ci --offline`.
 */
export function writeConsumerProject(dir: string, packedTarball: string): ConsumerProject {
  const tarballName = path.basename(packedTarball);
  copyFileSync(packedTarball, path.join(dir, tarballName));
  const dependencies = {
    "goal-loops": `file:${tarballName}`,
    "aws-cdk-lib": lockedVersion("aws-cdk-lib"),
    constructs: lockedVersion("constructs"),
    "cdk-nag": lockedVersion("cdk-nag"),
  };
  const devDependencies = {
    "aws-cdk": lockedVersion("aws-cdk"),
    tsx: lockedVersion("tsx"),
    typescript: lockedVersion("typescript"),
    "@types/node": lockedVersion("@types/node"),
  };
  const name = "platform";
  const json = (file: string, value: unknown) =>
    writeFileSync(path.join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
  json("package.json", { name, version: "1.0.0", private: true, dependencies, devDependencies });
  json(
    "package-lock.json",
    consumerLock({
      repositoryLock: PackageLockSchema.parse(
        JSON.parse(readFileSync(path.join(PROJECT_DIR, "package-lock.json"), "utf8")),
      ),
      name,
      dependencies,
      devDependencies,
      goalLoops: { manifest: packedManifest(), tarball: tarballName },
    }),
  );
  json("cdk.json", {
    app: "npx tsx bin/platform.ts",
    watch: {
      include: ["**"],
      exclude: [
        "README.md",
        "cdk*.json",
        "**/*.d.ts",
        "**/*.js",
        "tsconfig.json",
        "package*.json",
        "node_modules",
        "test",
      ],
    },
    context: { "@aws-cdk/core:enablePartitionLiterals": true },
  });
  // As `cdk init app --language typescript` writes it (aws-cdk's init template), `skipLibCheck`
  // included: the app's own code is checked against goal-loops' declarations, not aws-cdk-lib's
  // thousands of declaration files against each other (about half the type-check's CPU here).
  // That every package the declarations import is one the package depends on is the package
  // test's own check ("declares every package its declarations import").
  json("tsconfig.json", {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["es2022"],
      types: ["node"],
      strict: true,
      noImplicitReturns: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
    },
    exclude: ["node_modules", "cdk.out"],
  });
  mkdirSync(path.join(dir, "bin"));
  mkdirSync(path.join(dir, "lib"));
  writeFileSync(path.join(dir, "bin", "platform.ts"), APP_SOURCE);
  writeFileSync(path.join(dir, "lib", "platform-stack.ts"), STACK_SOURCE);
  return { dir, tarball: path.join(dir, tarballName) };
}

/** goal-loops' package.json as `npm pack` packs it (this repository's: `files` changes nothing in it). */
function packedManifest(): Record<string, unknown> {
  const parsed: unknown = JSON.parse(readFileSync(path.join(PROJECT_DIR, "package.json"), "utf8"));
  if (typeof parsed !== "object" || parsed === null) throw new Error("package.json is not an object");
  return { ...parsed };
}
