import { ModelRoleSchema } from "../models/model-roles";
import * as z from "../zod";
import { GoalIdSchema } from "./goal-ids";
import { type Usage, UsageSchema } from "./usage";

/**
 * A fork's origin, as its GoalSpec and snapshot show it: the goal it was forked from and the step
 * of that goal it starts after (`POST /goals/{goalId}/fork`). Set by the system, refused from users.
 */
export const ForkedFromSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.strictObject({
    goalId: GoalIdSchema,
    step: z.number().check(z.int(), z.gte(1)),
  }),
);
export type ForkedFrom = z.infer<typeof ForkedFromSchema>;

/**
 * A decision the fork request gave in advance for an approval its source was asked (`decisions`):
 * the fork's first approval of the same action (kind and fingerprint: the same tool calls with the
 * same input, the same limit) is decided so, without asking anyone. Used once (`usedBy`).
 */
export const ForkDecisionSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** The source's approval this decision replaces. */
    sourceApprovalId: z.string(),
    kind: z.string(),
    fingerprint: z.string(),
    decision: z.enum(["approve", "reject"]),
    comment: z.optional(z.string().check(z.maxLength(2000))),
    /** Who asked for the fork: the decision is theirs. */
    decidedBy: z.string(),
    /** The fork's approval it decided, once it did. */
    usedBy: z.optional(z.string()),
  }),
);
export type ForkDecision = z.infer<typeof ForkDecisionSchema>;

/**
 * What a forked goal keeps about being one (see ForkedFromSchema for where it came from). Its
 * `usage` counts the source's calls up to the fork point too, so that limits, budgets and the
 * counted-calls bookkeeping carry on exactly where the source stood; `inherited` is that part,
 * shown apart and never billed to the fork.
 */
export const ForkStateSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /**
     * 1 for a fork of a goal no fork made, 2 for a fork of such a fork … It names the fork's run ids
     * (`f<generation>-r1`) apart from the run ids of the checkpoints it inherits.
     */
    generation: z.number().check(z.int(), z.gte(1)),
    /** SHA-256 of the fork request: the same Idempotency-Key with another request is refused. */
    requestSha256: z.string().check(z.regex(/^[a-f0-9]{64}$/)),
    inherited: z.object({
      usage: UsageSchema,
      usageByRole: z.partialRecord(ModelRoleSchema, UsageSchema),
    }),
    decisions: z.array(ForkDecisionSchema).check(z.maxLength(50)),
  }),
);
export type ForkState = z.infer<typeof ForkStateSchema>;

/** The first run of a fork of `generation`: apart from every run id its inherited checkpoints name. */
export function forkRunId(generation: number): string {
  return `f${generation}-r1`;
}

/** `total` less `part`, never below zero (rounding dust of the cost included). */
export function usageLess(total: Usage, part: Usage | undefined): Usage {
  if (part === undefined) return total;
  const less = (a: number, b: number) => Math.max(0, a - b);
  return {
    inputTokens: less(total.inputTokens, part.inputTokens),
    outputTokens: less(total.outputTokens, part.outputTokens),
    cacheReadTokens: less(total.cacheReadTokens, part.cacheReadTokens),
    cacheWriteTokens: less(total.cacheWriteTokens, part.cacheWriteTokens),
    modelCalls: less(total.modelCalls, part.modelCalls),
    costUsd: Math.round(less(total.costUsd, part.costUsd) * 1e9) / 1e9,
  };
}

/** The usage a goal itself was billed for: all of it, less what a fork inherited from its source. */
export function billedUsage(record: { readonly usage: Usage; readonly fork?: ForkState }): Usage {
  return usageLess(record.usage, record.fork?.inherited.usage);
}
