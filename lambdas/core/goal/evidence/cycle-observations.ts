import * as z from "../../zod";
import { WorkspacePathSchema } from "../goal-spec";

const Sha256Schema = /* @__PURE__ */ z.lazySchema(() =>
  z.string().check(z.regex(/^[a-f0-9]{64}$/, "must be a lower-case hex SHA-256")),
);

/** A workspace file as the tool runner recorded it. `content` is needed to judge `contains`. */
export const ArtifactObservationSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    path: WorkspacePathSchema,
    sha256: Sha256Schema,
    /** The file's full text; when given it must hash to `sha256`. */
    content: z.optional(z.string()),
  }),
);
export type ArtifactObservation = z.infer<typeof ArtifactObservationSchema>;

/** A tool result as the tool runner recorded it (never as the model retold it). */
export const ToolResultObservationSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    tool: z.string().check(z.minLength(1)),
    status: z.enum(["success", "error"]),
    resultText: z.optional(z.string()),
    resultJson: z.optional(z.json()),
    /** Hash of the full result; the text above may be a bounded excerpt of it. */
    sha256: Sha256Schema,
    /** The call only read (its risk was `read`): a new result of it is new information. */
    reads: z.optional(z.boolean()),
  }),
);
export type ToolResultObservation = z.infer<typeof ToolResultObservationSchema>;

/** A human decision on an `approval` success check, as the approvals store recorded it. */
export const ApprovalObservationSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    checkId: z.string().check(z.minLength(1)),
    approvalId: z.string().check(z.minLength(1)),
    decidedBy: z.string().check(z.minLength(1)),
    decision: z.enum(["approve", "reject"]),
  }),
);
export type ApprovalObservation = z.infer<typeof ApprovalObservationSchema>;

/**
 * What one cycle observed. Checks are judged from the recorded artifacts, tool results and approvals
 * only; `modelClaims` is kept for the audit trail and never satisfies anything.
 */
export const CycleObservationsSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    artifacts: z._default(z.array(ArtifactObservationSchema), []),
    toolResults: z._default(z.array(ToolResultObservationSchema), []),
    approvals: z._default(z.array(ApprovalObservationSchema), []),
    /** Ids of blockers the cycle cleared (`missing-credentials`, `build-red`). */
    clearedBlockers: z._default(z.array(z.string().check(z.minLength(1), z.maxLength(200))), []),
    modelClaims: z._default(
      z.strictObject({
        done: z._default(z.boolean(), false),
        satisfiedChecks: z._default(z.array(z.string()), []),
      }),
      { done: false, satisfiedChecks: [] },
    ),
    /** The loop's one-line summary of the cycle, kept in the progress notes. */
    note: z.optional(z.string().check(z.maxLength(500))),
  }),
);
export type CycleObservationsInput = z.input<typeof CycleObservationsSchema>;
export type CycleObservations = z.output<typeof CycleObservationsSchema>;
