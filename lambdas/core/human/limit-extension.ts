import { ValidationError } from "../goal/errors";
import type { GoalRecord } from "../goal/goal-record";
import { type LimitName, type LimitsPatch, LimitsPatchSchema } from "../goal/limits";

const GROWTH = 1.5;
const MIN_DEADLINE_EXTENSION_MS = 3_600_000;

/**
 * The limits an approved limit decision sets. A comment that is a JSON limits patch
 * (`{"maxSteps": 40}`) is taken as the human's own; any other approval extends the reached limit by
 * half of itself (+50%: maxSteps 20 → 30; a deadline moves by half the time the goal has had, at
 * least one hour), and always past what is already used so the limit is cleared.
 */
export function limitExtension(
  record: GoalRecord,
  reached: LimitName,
  comment: string | undefined,
  now: Date,
): LimitsPatch {
  const own = patchFromComment(comment);
  if (own) return own;
  const limits = record.spec.limits;
  const grow = (value: number, used: number, max: number) =>
    Math.min(max, Math.max(Math.ceil(value * GROWTH), used + 1));
  switch (reached) {
    case "maxSteps":
      return { maxSteps: grow(limits.maxSteps, record.steps, 100_000) };
    case "maxCostUsd": {
      // Past the worst case of the call the budget could not pay for, when that is what stopped it.
      const needed = record.usage.costUsd + (record.costShortfall?.neededUsd ?? 0);
      return {
        maxCostUsd: Math.min(10_000, Math.max(limits.maxCostUsd * GROWTH, needed * GROWTH, 0.01)),
      };
    }
    case "maxReplans":
      return { maxReplans: grow(limits.maxReplans, record.replans ?? 0, 1000) };
    case "maxAttempts":
      return { maxAttempts: grow(limits.maxAttempts, record.attempts ?? 0, 1000) };
    case "deadline": {
      const had = Math.max(0, Date.parse(limits.deadline ?? record.createdAt) - Date.parse(record.createdAt));
      const extension = Math.max(MIN_DEADLINE_EXTENSION_MS, Math.ceil(had * (GROWTH - 1)));
      return { deadline: new Date(now.getTime() + extension).toISOString() };
    }
  }
}

function patchFromComment(comment: string | undefined): LimitsPatch | undefined {
  if (!comment?.trim().startsWith("{")) return undefined;
  try {
    const parsed = LimitsPatchSchema.safeParse(JSON.parse(comment));
    return parsed.success ? parsed.data : undefined;
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof ValidationError) return undefined;
    throw error;
  }
}
