import * as z from "../zod";

/** Tokens, calls and cost of model calls: a goal's, a role's, or what a fork inherited. */
export const UsageSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    inputTokens: z.number().check(z.int(), z.gte(0)),
    outputTokens: z.number().check(z.int(), z.gte(0)),
    cacheReadTokens: z.number().check(z.int(), z.gte(0)),
    cacheWriteTokens: z.number().check(z.int(), z.gte(0)),
    modelCalls: z.number().check(z.int(), z.gte(0)),
    costUsd: z.number().check(z.gte(0)),
  }),
);
export type Usage = z.infer<typeof UsageSchema>;

export const EMPTY_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 0,
  costUsd: 0,
};
