import * as z from "zod";
import { GoalStatusSchema } from "../../core/goal/goal-record";

/** The store's largest page; a bigger `limit` is refused here rather than silently cut. */
const MAX_PAGE_SIZE = 1000;

/** A whole number in a query string, kept apart from `""`, `1.5` or `1e3` that Number() would accept. */
const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const LimitParam = wholeNumber(1, MAX_PAGE_SIZE).optional();

/** `GET /goals?status=&limit=&cursor=` */
export const ListGoalsQuerySchema = z.object({
  status: GoalStatusSchema.optional(),
  limit: LimitParam,
  cursor: z.string().min(1).max(4096).optional(),
});
export type ListGoalsQuery = z.infer<typeof ListGoalsQuerySchema>;

/** The longest a long poll waits: API Gateway's integration timeout is 29 s. */
export const MAX_WAIT_SECONDS = 20;

/** `GET /goals/{goalId}/events?after=N&limit=&waitSeconds=S` */
export const ListEventsQuerySchema = z.object({
  after: wholeNumber(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: LimitParam,
  /** Long poll: wait up to S seconds (at most 20) for a first event after `after`. */
  waitSeconds: wholeNumber(0, MAX_WAIT_SECONDS).optional(),
});
export type ListEventsQuery = z.infer<typeof ListEventsQuerySchema>;

/** The most steps one page of `GET /goals/{goalId}/steps` holds (each reads its step's state). */
export const MAX_STEPS_PAGE = 100;

/** `GET /goals/{goalId}/steps?after=N&limit=` */
export const ListStepsQuerySchema = z.object({
  after: wholeNumber(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: wholeNumber(1, MAX_STEPS_PAGE).optional(),
});
