import * as z from "../zod";

/** How long one lesson may be: one or two sentences, with room to spare. */
export const MAX_LESSON_CHARS = 600;

/**
 * A Reflexion lesson: what a failed attempt taught, in the reflector's words (model output: data
 * shown in later attempt prompts, never instructions that change the goal).
 */
export const LessonSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** The attempt the lesson is about (`record.attempts` when it failed), from 1. */
    attempt: z.number().check(z.int(), z.gte(1)),
    text: z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_LESSON_CHARS)),
    at: z.iso.datetime(),
  }),
);
export type Lesson = z.infer<typeof LessonSchema>;
