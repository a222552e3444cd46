import * as z from "../../zod";

/**
 * Evidence proves a success check. Strength orders how much it can be trusted: a model judgement is
 * the weakest and is labelled so wherever it is shown.
 */
export const EVIDENCE_STRENGTH = {
  artifact: "strong",
  tool_result: "strong",
  approval: "strong",
  model_judge: "weak",
} as const;

// A function, called by the schema's builder: schemas built at import would cost every cold start.
const evidenceBase = () => ({
  checkId: z.string(),
  at: z.iso.datetime(),
  /** The run and iteration that produced it, for the audit trail. */
  runId: z.string(),
  iteration: z.number().check(z.int(), z.gte(0)),
});

export const EvidenceSchema = /* @__PURE__ */ z.lazySchema(() => {
  const EvidenceBase = evidenceBase();
  return z.discriminatedUnion("kind", [
    z.object({
      ...EvidenceBase,
      kind: z.literal("artifact"),
      strength: z.literal("strong"),
      path: z.string(),
      sha256: z.string(),
    }),
    z.object({
      ...EvidenceBase,
      kind: z.literal("tool_result"),
      strength: z.literal("strong"),
      tool: z.string(),
      /** Hash of the recorded result that met the predicate. */
      resultSha256: z.string(),
    }),
    z.object({
      ...EvidenceBase,
      kind: z.literal("approval"),
      strength: z.literal("strong"),
      approvalId: z.string(),
      decidedBy: z.string(),
    }),
    z.object({
      ...EvidenceBase,
      kind: z.literal("model_judge"),
      strength: z.literal("weak"),
      modelId: z.string(),
      verdict: z.string().check(z.maxLength(2000)),
    }),
  ]);
});
export type Evidence = z.infer<typeof EvidenceSchema>;
