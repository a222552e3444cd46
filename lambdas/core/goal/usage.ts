import * as z from "zod";

/** Tokens, calls and cost of model calls: a goal's, a role's, or what a fork inherited. */
export const UsageSchema = z.object({
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  cacheReadTokens: z.number().int().min(0),
  cacheWriteTokens: z.number().int().min(0),
  modelCalls: z.number().int().min(0),
  costUsd: z.number().min(0),
});
export type Usage = z.infer<typeof UsageSchema>;

export const EMPTY_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 0,
  costUsd: 0,
};
