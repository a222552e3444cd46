import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium (`apt-get install -y chromium`; `.ci/run` installs it when missing). */
export const CHROMIUM = "/usr/bin/chromium";
export const SCREENSHOTS = resolve(import.meta.dirname, "screenshots");

/**
 * Headless Chromium driven by playwright-core, with nothing that reaches the network on its own
 * (updates, sync, QUIC): the page only ever talks to the local stack. playwright-core gives every
 * launch a fresh profile in a temporary folder of its own.
 */
export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
    },
  };
}
