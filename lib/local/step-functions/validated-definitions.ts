import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import * as z from "zod";

/**
 * The state machine definitions the engine's validator accepted. aws-local-stepfunctions checks a
 * definition with asl-validator when it builds a machine, and asl-validator compiles a new Ajv
 * schema on every call: about 1.1 s of CPU for a stack's machines on every local stack start, and
 * 1–3 s in every `goal-loops start` process (more with kept versions). The same definition gives
 * the same answer from the same validator, so an accepted one is remembered by the hash of the
 * validator's version and the definition: in this process (a test fork starts many stacks), and in
 * a file of the state folder when there is one (a restart of `npm start --state-dir` starts the
 * same definitions). A refused definition is never remembered: it is refused again, with its errors.
 */
export class ValidatedDefinitions {
  private static readonly inProcess = new Set<string>();
  private readonly file: string | undefined;
  /** What the file held when it was read, and what this instance wrote to it since. */
  private readonly inFile = new Set<string>();

  /** @param file where accepted definitions are kept across processes; best effort (a read-only folder keeps none) */
  constructor(file?: string) {
    this.file = file;
    if (file === undefined) return;
    for (const key of readKeys(file)) {
      this.inFile.add(key);
      ValidatedDefinitions.inProcess.add(key);
    }
  }

  /**
   * A definition's key: taken before the engine sees it, since asl-validator writes a default
   * `QueryLanguage` into the states of the definition it checks.
   */
  static keyOf(definition: unknown): string {
    return createHash("sha256")
      .update(`asl-validator ${VALIDATOR_VERSION}\n${JSON.stringify(definition)}`, "utf8")
      .digest("base64url");
  }

  has(key: string): boolean {
    return ValidatedDefinitions.inProcess.has(key);
  }

  /** Remembers the keys of definitions the engine accepted (after they were built without an error). */
  add(keys: readonly string[]): void {
    for (const key of keys) ValidatedDefinitions.inProcess.add(key);
    if (this.file === undefined || keys.every((key) => this.inFile.has(key))) return;
    for (const key of keys) this.inFile.add(key);
    try {
      const kept = new Set([...readKeys(this.file), ...keys]);
      mkdirSync(path.dirname(this.file), { recursive: true });
      // Another process may write it too: each writes a whole file and renames it into place.
      const temporary = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify([...kept])}\n`);
      renameSync(temporary, this.file);
    } catch {
      // Only a cache: the next process validates again.
    }
  }
}

const KeysSchema = z.array(z.string().regex(/^[A-Za-z0-9_-]{43}$/));

function readKeys(file: string): readonly string[] {
  try {
    const parsed = KeysSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/** The validator the engine itself loads (aws-local-stepfunctions may bring its own copy). */
const VALIDATOR_VERSION: string = (() => {
  const engineRequire = createRequire(createRequire(import.meta.url).resolve("aws-local-stepfunctions"));
  const manifest: unknown = engineRequire("asl-validator/package.json");
  return z.object({ version: z.string() }).parse(manifest).version;
})();
