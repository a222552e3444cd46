import type { CycleObservations } from "./cycle-observations";

/** A fingerprint of something a cycle observed, with the words a progress note uses for it. */
export interface Observed {
  readonly fingerprint: string;
  readonly description: string;
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
    ...observations.artifacts.map((artifact) => ({
      fingerprint: `artifact:${artifact.path}@${short(artifact.sha256)}`,
      description: `new artifact ${artifact.path} (${short(artifact.sha256)})`,
    })),
    ...observations.toolResults.map((result) => ({
      fingerprint: `tool:${result.tool}:${result.status}:${short(result.sha256)}`,
      description: `new ${result.status} result of ${result.tool}`,
    })),
    ...observations.clearedBlockers.map((blocker) => ({
      fingerprint: `blocker:${blocker}`,
      description: `blocker ${blocker} cleared`,
    })),
    ...observations.approvals.map((approval) => ({
      fingerprint: `approval:${approval.approvalId}`,
      description: `approval ${approval.approvalId} ${approval.decision === "approve" ? "given" : "refused"}`,
    })),
  ];
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
