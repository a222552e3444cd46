import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { MIN_LINK_SECRET_LENGTH } from "../../lambdas/core/human/email/approval-link";
import { LocalSecretError } from "../../lib/local/shared/errors";
import { localSecrets } from "../../lib/local/storage/local-secrets";

const PROJECT_DIR = resolve(import.meta.dirname, "../..");

/** `npm start` (`goal-loops start`, the compiled CLI), with `env` over this process's environment. */
function startLocal(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(
      process.execPath,
      [join(PROJECT_DIR, "bin", "goal-loops.mjs"), "start", "--in-memory", "--port", "0"],
      { cwd: PROJECT_DIR, env: { ...process.env, ...env } },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolveRun({ code, stderr }));
  });
}

describe("local secrets", () => {
  it("generates what is unset, and refuses an EMAIL_LINK_SECRET shorter than the links need", () => {
    // Act
    const generated = localSecrets({});
    const refused = () => localSecrets({ EMAIL_LINK_SECRET: "x".repeat(MIN_LINK_SECRET_LENGTH - 1) });

    // Assess
    expect(generated.generated.sort()).toEqual([
      "EMAIL_LINK_SECRET",
      "SLACK_BOT_TOKEN",
      "SLACK_SIGNING_SECRET",
    ]);
    expect(generated.secrets.emailLinkSecret.length).toBeGreaterThanOrEqual(MIN_LINK_SECRET_LENGTH);
    expect(refused).toThrow(LocalSecretError);
    expect(refused).toThrow(`EMAIL_LINK_SECRET has ${MIN_LINK_SECRET_LENGTH - 1} characters`);
  });

  it("makes npm start exit 1 with the reason, before it starts anything", async () => {
    // Act
    const { code, stderr } = await startLocal({ EMAIL_LINK_SECRET: "too-short" });

    // Assess
    expect(code).toBe(1);
    expect(stderr).toContain(
      `LocalSecretError: EMAIL_LINK_SECRET has 9 characters; email approval links are signed with it (HMAC-SHA256) and need at least ${MIN_LINK_SECRET_LENGTH}`,
    );
  });
});
