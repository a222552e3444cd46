import { GoalStatusSchema } from "../../core/goal/goal-record";
import * as z from "../../core/zod";

/** The store's largest page; a bigger `limit` is refused here rather than silently cut. */
const MAX_PAGE_SIZE = 1000;

/** A whole number in a query string, kept apart from `""`, `1.5` or `1e3` that Number() would accept. */
const wholeNumber = (min: number, max: number) =>
  z.pipe(
    z.pipe(z.string().check(z.regex(/^\d{1,15}$/, "must be a whole number")), z.transform(Number)),
    z.number().check(z.int(), z.gte(min), z.lte(max)),
  );

const LimitParam = /* @__PURE__ */ z.lazySchema(() => z.optional(wholeNumber(1, MAX_PAGE_SIZE)));

/** `GET /goals?status=&limit=&cursor=` */
export const ListGoalsQuerySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    status: z.optional(GoalStatusSchema),
    limit: LimitParam,
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
  }),
);
export type ListGoalsQuery = z.infer<typeof ListGoalsQuerySchema>;

/** The longest a long poll waits: API Gateway's integration timeout is 29 s. */
export const MAX_WAIT_SECONDS = 20;

/** `GET /goals/{goalId}/events?after=N&limit=&waitSeconds=S` */
export const ListEventsQuerySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    after: z.optional(wholeNumber(0, Number.MAX_SAFE_INTEGER)),
    limit: LimitParam,
    /** Long poll: wait up to S seconds (at most 20) for a first event after `after`. */
    waitSeconds: z.optional(wholeNumber(0, MAX_WAIT_SECONDS)),
  }),
);
export type ListEventsQuery = z.infer<typeof ListEventsQuerySchema>;

/** The most steps one page of `GET /goals/{goalId}/steps` holds (each reads its step's state). */
export const MAX_STEPS_PAGE = 100;

/** `GET /goals/{goalId}/steps?after=N&limit=` */
export const ListStepsQuerySchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    after: z.optional(wholeNumber(0, Number.MAX_SAFE_INTEGER)),
    limit: z.optional(wholeNumber(1, MAX_STEPS_PAGE)),
  }),
);
