import * as z from "../zod";

/**
 * A compensation saga (DESIGN §5): the calls of a range of completed steps undone in reverse order,
 * each by its tool's compensator, once. The record keeps where the saga is (`processed` calls of
 * its fixed order), so a step that crashed mid-saga resumes at the call it was on, and that
 * compensator's own idempotency finds its work done instead of doing it twice. What each
 * compensator did is in the `compensation.*` events; what no compensator can undo stays here for a
 * human to see (the snapshot shows it). Shapes only: running one is loop/revisions/saga.ts.
 */

/** How many steps one saga may cover; a corrective revision targeting further back is refused. */
export const MAX_SAGA_STEPS = 100;
/** How many not-compensable calls the record names; the events name every one. */
const MAX_NAMED_CALLS = 50;

/** What started a saga: a corrective revision with a target, or a plan_execute goal abandoned. */
export const SAGA_TRIGGERS = ["corrective", "abandoned"] as const;

/** A call of the range that has no compensator: the human sees it was not undone, and why. */
export const UncompensatedCallSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    step: z.number().check(z.int(), z.gte(1)),
    tool: z.string(),
    toolUseId: z.string(),
    reason: z.string().check(z.maxLength(300)),
  }),
);
export type UncompensatedCall = z.infer<typeof UncompensatedCallSchema>;

export const SagaSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    sagaId: z.string(),
    trigger: z.enum(SAGA_TRIGGERS),
    /** The corrective revision that asked for it. */
    revisionId: z.optional(z.string()),
    /** The first step undone (with every later one, up to `toStep`). */
    fromStep: z.number().check(z.int(), z.gte(1)),
    toStep: z.number().check(z.int(), z.gte(0)),
    status: z.enum(["running", "completed"]),
    /** Calls of the saga's order handled so far (undone, found undone, skipped or reported). */
    processed: z.number().check(z.int(), z.gte(0)),
    /** Calls whose compensator undid them. */
    undone: z.number().check(z.int(), z.gte(0)),
    notCompensable: z.array(UncompensatedCallSchema).check(z.maxLength(MAX_NAMED_CALLS)),
    /** Compensators that ran and failed, or found the call's effect changed since: left for a human. */
    failed: z.array(UncompensatedCallSchema).check(z.maxLength(MAX_NAMED_CALLS)),
    startedAt: z.iso.datetime(),
    completedAt: z.optional(z.iso.datetime()),
  }),
);
export type Saga = z.infer<typeof SagaSchema>;

/** Appends a call to a bounded list of the saga (the events keep every one). */
export function withNamedCall(
  list: readonly UncompensatedCall[],
  call: UncompensatedCall,
): UncompensatedCall[] {
  return list.length >= MAX_NAMED_CALLS ? [...list] : [...list, call];
}
