import { GoalLoopsError } from "../goal/errors";
import * as z from "../zod";

/** Who wrote a workspace file: the tool call that did it (audit trail and idempotency). */
export const WriterSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    toolUseId: z.string(),
  }),
);
export type Writer = z.infer<typeof WriterSchema>;

/** A file in a goal's workspace. Artifacts (evidence for `artifact` checks) are workspace files. */
export const WorkspaceFileSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    path: z.string(),
    content: z.string(),
    sha256: z.string(),
    /** UTF-8 bytes of `content`. */
    size: z.number().check(z.int(), z.gte(0)),
    /** 1 for a new file; each changing write adds one. */
    version: z.number().check(z.int(), z.gte(1)),
    /** The content this write replaced (null for a new file): `workspace_write`'s compensation restores it. */
    previous: z.nullable(z.object({ content: z.string(), sha256: z.string() })),
    writtenBy: WriterSchema,
    updatedAt: z.iso.datetime(),
  }),
);
export type WorkspaceFile = z.infer<typeof WorkspaceFileSchema>;

export type WorkspaceEntry = Pick<WorkspaceFile, "path" | "sha256" | "size" | "version" | "updatedAt">;

export interface WorkspaceWriteResult {
  readonly file: WorkspaceFile;
  /** False when the file already had exactly this content: a retried write changes nothing. */
  readonly changed: boolean;
}

/**
 * A goal's workspace in the goal store. Writes are idempotent for identical content, so a retried
 * `act` step never bumps a version or loses the content to compensate to.
 */
export interface Workspace {
  writeFile(input: {
    goalId: string;
    path: string;
    content: string;
    writtenBy: Writer;
  }): Promise<WorkspaceWriteResult>;
  /** The file, or undefined when there is none (never written, or deleted). */
  readFile(goalId: string, path: string): Promise<WorkspaceFile | undefined>;
  listFiles(goalId: string): Promise<readonly WorkspaceEntry[]>;
  /**
   * Deletes a file, as a compensation undoes the write that created it. The file's version count goes
   * on (a later write of the same path is a new version, never version 1 again). Idempotent: a file
   * already gone changes nothing (`deleted: false`).
   */
  deleteFile(input: {
    goalId: string;
    path: string;
    writtenBy: Writer;
  }): Promise<{ readonly deleted: boolean }>;
  /**
   * What version `version` of a file held, so a compensation can restore what a write replaced:
   * its content, `deleted` for a version that was the file's deletion, or undefined when the
   * workspace no longer knows (a version kept before it kept versions).
   */
  readVersion(goalId: string, path: string, version: number): Promise<WorkspaceVersion | undefined>;
  /**
   * Does ahead the part of a write of `content` to `path` that is safe before the step commits to
   * making it: keeping the version the write would replace. A write of this instance then only
   * moves the file. Harmless when the write never comes (that version holds that content for
   * ever); never rejects. Optional: a workspace without it does it all in `writeFile`.
   */
  stageWrite?(input: { goalId: string; path: string; content: string }): Promise<void>;
}

/** One version of a workspace file, as `readVersion` finds it. */
export type WorkspaceVersion =
  | { readonly deleted: false; readonly content: string; readonly sha256: string }
  | { readonly deleted: true };

/** A workspace file (or a tool result stored as one) larger than the store accepts. */
export class WorkspaceFileTooLargeError extends GoalLoopsError {
  override readonly name = "WorkspaceFileTooLargeError";

  constructor(
    readonly path: string,
    /** UTF-8 bytes of the content refused. */
    readonly size: number,
    /** The largest file the store accepts, in bytes. */
    readonly limitBytes: number,
  ) {
    super(`'${path}' is ${size} bytes; the workspace keeps files up to ${limitBytes} bytes`);
  }
}
