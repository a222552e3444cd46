/**
 * `node:crypto` as the console's bundle sees it. The console imports the API's schemas and the
 * typed client, whose modules sit beside id derivation and content hashing (goal-ids,
 * canonical-json, subgoals) that only the server calls; the page never derives an id or a hash.
 * The build aliases `node:crypto` here (lib/build/build-cli.ts) so those modules load in a browser.
 */
export class NotInTheBrowserError extends Error {
  override readonly name = "NotInTheBrowserError";
}

export function createHash(algorithm: string): never {
  throw new NotInTheBrowserError(`createHash(${algorithm}) runs on the server only, never in the console`);
}

export const randomUUID = (): string => globalThis.crypto.randomUUID();
