import * as z from "../zod";

/**
 * Ids and names that are safe in keys, URLs, events and prompts: success check ids, step ids, tool
 * names (`tests-pass`, `fetch-notes`, `report_1`). One definition for the goal spec and the plan.
 */
export const IdentifierSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .string()
    .check(
      z.regex(
        /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
        "must be 1-64 letters, digits, '-' or '_', starting with a letter or digit",
      ),
    ),
);
