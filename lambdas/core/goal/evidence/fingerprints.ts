import type { SuccessCheck } from "../goal-spec";
import type { CycleObservations } from "./cycle-observations";

/** A fingerprint of something a cycle observed, with the words a progress note uses for it. */
export interface Observed {
  readonly fingerprint: string;
  readonly description: string;
  /** What it is about: a workspace file, a tool's result (`reads`: a call that only read), or else. */
  readonly about:
    | { readonly kind: "artifact"; readonly path: string }
    | { readonly kind: "tool"; readonly tool: string; readonly success: boolean; readonly reads: boolean }
    | { readonly kind: "other" };
}

/** 16 hex digits (64 bits) of a SHA-256 keep fingerprints short in the record and still distinct. */
const short = (sha256: string) => sha256.slice(0, 16);

/**
 * Fingerprints of the cycle's observations. The same call with the same result gives the same
 * fingerprint, so repeating it is never new; a new artifact version, a distinct tool result, a
 * cleared blocker or a recorded approval is.
 */
export function observationFingerprints(observations: CycleObservations): Observed[] {
  return [
    ...observations.artifacts.map(
      (artifact): Observed => ({
        fingerprint: `artifact:${artifact.path}@${short(artifact.sha256)}`,
        description: `new artifact ${artifact.path} (${short(artifact.sha256)})`,
        about: { kind: "artifact", path: artifact.path },
      }),
    ),
    ...observations.toolResults.map(
      (result): Observed => ({
        fingerprint: `tool:${result.tool}:${result.status}:${short(result.sha256)}`,
        description: `new ${result.status} result of ${result.tool}`,
        about: {
          kind: "tool",
          tool: result.tool,
          success: result.status === "success",
          reads: result.reads === true,
        },
      }),
    ),
    ...observations.clearedBlockers.map(
      (blocker): Observed => ({
        fingerprint: `blocker:${blocker}`,
        description: `blocker ${blocker} cleared`,
        about: { kind: "other" },
      }),
    ),
    ...observations.approvals.map(
      (approval): Observed => ({
        fingerprint: `approval:${approval.approvalId}`,
        description: `approval ${approval.approvalId} ${approval.decision === "approve" ? "given" : "refused"}`,
        about: { kind: "other" },
      }),
    ),
  ];
}

/**
 * Whether something new moves the goal toward its contract (DESIGN §3): a new version of a file an
 * unsatisfied check names, a new distinct result of the tool an unsatisfied check names, new
 * information a read-only call brought back, a cleared blocker or a human's decision. A file no
 * check names or a result of a tool no check names (a busy model) is new, but not progress.
 * Returns the unsatisfied checks it is evidence toward (empty for progress no one check names),
 * or undefined when it is not progress.
 */
export function towardContract(
  item: Observed,
  unsatisfied: readonly SuccessCheck[],
): readonly string[] | undefined {
  const about = item.about;
  if (about.kind === "other") return [];
  const named = unsatisfied.filter((check) =>
    about.kind === "artifact"
      ? check.verify.kind === "artifact" && check.verify.path === about.path
      : check.verify.kind === "tool_result" && check.verify.tool === about.tool,
  );
  if (named.length > 0) return named.map((check) => check.id);
  return about.kind === "tool" && about.reads && about.success ? [] : undefined;
}

/** The observations whose fingerprints were not seen before, each once, in observation order. */
export function newObservations(observed: readonly Observed[], seen: readonly string[]): Observed[] {
  const known = new Set(seen);
  const fresh: Observed[] = [];
  for (const item of observed) {
    if (known.has(item.fingerprint)) continue;
    known.add(item.fingerprint);
    fresh.push(item);
  }
  return fresh;
}
