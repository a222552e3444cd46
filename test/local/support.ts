import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { SFNClient } from "@aws-sdk/client-sfn";
import type { LogLine } from "../../lib/local/lambda/lambda-sandbox";

/** Polls `condition` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(10);
  }
}

export const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

export function sfnClientFor(endpoint: string): SFNClient {
  return new SFNClient({ endpoint, region: "us-east-1", credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
}

/** Collects what the fixture functions print instead of cluttering the test output. */
export function collectingLog(): { log: LogLine; lines: string[] } {
  const lines: string[] = [];
  return { log: (name, line) => lines.push(`[${name}] ${line}`), lines };
}

/** A temporary folder of fixture files; `cleanup` removes it. */
export function fixturesFolder(files: Record<string, unknown>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "goal-loops-fixtures-"));
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(path.join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
