import { ArtifactObservationSchema, ToolResultObservationSchema } from "../goal/evidence/cycle-observations";
import * as z from "../zod";
import { ModelTurnSchema, ToolResultBlockSchema, TurnConversationSchema } from "./model-client";

/**
 * One ReAct step as the model saw it: the assistant turn and the tool results sent back. Written
 * once per step (append-only) so a prompt can show the recent steps without re-saving history.
 */
export const StepRecordSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    goalId: z.string(),
    /** The goal's global step number (across runs), from 1. */
    step: z.number().check(z.int(), z.gte(1)),
    /** The lineage of the run that acted (run-lineage.ts): with `iteration`, the turn's position. */
    runId: z.string(),
    iteration: z.number().check(z.int(), z.gte(0)),
    turn: ModelTurnSchema,
    /**
     * The conversation the turn was made in (from its checkpoint): the prompt shows `prompt` before the
     * turn, and the turn verbatim, reasoning blocks included, while the conversation is the same.
     * Absent on steps logged before it was kept: they are shown without their reasoning.
     */
    conversation: z.optional(TurnConversationSchema),
    /** Results for every toolUse block of `turn`, in order; bounded, large outputs are artifacts. */
    toolResults: z.array(ToolResultBlockSchema),
    /** What verify counts: the recorded tool results and the workspace files the calls wrote. */
    observations: z.object({
      artifacts: z.array(ArtifactObservationSchema),
      toolResults: z.array(ToolResultObservationSchema),
    }),
    at: z.iso.datetime(),
  }),
);
export type StepRecord = z.infer<typeof StepRecordSchema>;

export interface StepLog {
  /**
   * Idempotent: putting the same step number again keeps the first record. Answers `undefined` when
   * this call logged the step, else the record an earlier writer logged under its number.
   *
   * `schema`: the record schema the step's goal is stored in (its record's `schema`; absent: this
   * code's RECORD_SCHEMA). The step is written in that shape, as that schema's code wrote it, because
   * the goal's own version, possibly older than this code (a rollback), reads its steps. A schema newer
   * than this code's is refused (RecordSchemaTooNewError), one that is no schema too.
   */
  putStep(step: StepRecord, schema?: number): Promise<StepRecord | undefined>;
  /** The latest `limit` steps, oldest first. */
  listRecentSteps(goalId: string, limit: number): Promise<readonly StepRecord[]>;
}
