import * as z from "../zod";
import { ValidationError, type ValidationIssue } from "./errors";

/** Formats a zod path (`["successChecks", 0, "verify"]`) as `successChecks.0.verify`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.map((segment) => String(segment)).join(".");
}

/**
 * Parses `input` with `schema`, or throws a ValidationError whose issues name every bad field's path.
 * `what` names the thing being parsed for the message ("GoalSpec", "revision").
 */
export function parseOrThrow<S extends z.core.$ZodType>(
  schema: S,
  input: unknown,
  what: string,
): z.output<S> {
  const result = z.safeParse(schema, input);
  if (result.success) return result.data;
  const issues: ValidationIssue[] = result.error.issues.flatMap((issue) =>
    // An unknown key is reported on its parent by zod; name the key itself so a typo is easy to find.
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: formatIssuePath([...issue.path, key]), message: "unknown field" }))
      : [{ path: formatIssuePath(issue.path), message: issue.message }],
  );
  const summary = issues.map((issue) => `${issue.path || "(root)"}: ${issue.message}`).join("; ");
  throw new ValidationError(`Invalid ${what}: ${summary}`, issues, { cause: result.error });
}
