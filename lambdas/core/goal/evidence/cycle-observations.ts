import * as z from "zod";
import { WorkspacePathSchema } from "../goal-spec";

const Sha256Schema = z.string().regex(/^[a-f0-9]{64}$/, "must be a lower-case hex SHA-256");

/** A workspace file as the tool runner recorded it. `content` is needed to judge `contains`. */
export const ArtifactObservationSchema = z
  .object({
    path: WorkspacePathSchema,
    sha256: Sha256Schema,
    /** The file's full text; when given it must hash to `sha256`. */
    content: z.string().optional(),
  })
  .strict();
export type ArtifactObservation = z.infer<typeof ArtifactObservationSchema>;

/** A tool result as the tool runner recorded it (never as the model retold it). */
export const ToolResultObservationSchema = z
  .object({
    tool: z.string().min(1),
    status: z.enum(["success", "error"]),
    resultText: z.string().optional(),
    resultJson: z.json().optional(),
    /** Hash of the full result; the text above may be a bounded excerpt of it. */
    sha256: Sha256Schema,
    /** The call only read (its risk was `read`): a new result of it is new information. */
    reads: z.boolean().optional(),
  })
  .strict();
export type ToolResultObservation = z.infer<typeof ToolResultObservationSchema>;

/** A human decision on an `approval` success check, as the approvals store recorded it. */
export const ApprovalObservationSchema = z
  .object({
    checkId: z.string().min(1),
    approvalId: z.string().min(1),
    decidedBy: z.string().min(1),
    decision: z.enum(["approve", "reject"]),
  })
  .strict();
export type ApprovalObservation = z.infer<typeof ApprovalObservationSchema>;

/**
 * What one cycle observed. Checks are judged from the recorded artifacts, tool results and approvals
 * only; `modelClaims` is kept for the audit trail and never satisfies anything.
 */
export const CycleObservationsSchema = z
  .object({
    artifacts: z.array(ArtifactObservationSchema).default([]),
    toolResults: z.array(ToolResultObservationSchema).default([]),
    approvals: z.array(ApprovalObservationSchema).default([]),
    /** Ids of blockers the cycle cleared (`missing-credentials`, `build-red`). */
    clearedBlockers: z.array(z.string().min(1).max(200)).default([]),
    modelClaims: z
      .object({
        done: z.boolean().default(false),
        satisfiedChecks: z.array(z.string()).default([]),
      })
      .strict()
      .default({ done: false, satisfiedChecks: [] }),
    /** The loop's one-line summary of the cycle, kept in the progress notes. */
    note: z.string().max(500).optional(),
  })
  .strict();
export type CycleObservationsInput = z.input<typeof CycleObservationsSchema>;
export type CycleObservations = z.output<typeof CycleObservationsSchema>;
