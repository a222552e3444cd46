import { DirectiveError } from "../goal/errors";
import { type SuccessCheck, SuccessCheckSchema } from "../goal/goal-spec";
import { CHECK_FORMS } from "./directive-forms";

export { CHECK_FORMS };

const CHECK_USAGE = `check forms: ${CHECK_FORMS.join(" | ")}`;

/** Splits `<text> --check a: … --check b: …` into the text and the check clauses. */
export function splitChecks(text: string): { text: string; clauses: string[] } {
  const [head = "", ...clauses] = text.split(/(?:^|\s)--check(?:\s+|$)/);
  return { text: head.trim(), clauses: clauses.map((clause) => clause.trim()) };
}

/**
 * One `--check` clause as a success check (its description is the clause itself): `<id>: artifact
 * <path> [contains <text>]`, `<id>: tool_result <tool> [success|error] [contains <text>]`, `<id>:
 * approval <prompt>`, `<id>: judge <rubric>`. A clause that fits none throws DirectiveError naming it.
 */
export function parseCheckClause(clause: string): SuccessCheck {
  const match = /^([^:\s]+)\s*:\s*(\S+)\s*([\s\S]*)$/.exec(clause);
  if (!match) throw invalidCheck(clause, "expected '<id>: <kind> …'");
  const [, id = "", kind = "", rest = ""] = match;
  const args = rest.trim();
  const parsed = SuccessCheckSchema.safeParse({
    id,
    description: `${kind} ${args}`.trim(),
    verify: verifyOf(clause, kind.toLowerCase(), args),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidCheck(clause, `${issue?.path.join(".") || "check"}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

function verifyOf(clause: string, kind: string, args: string): Record<string, unknown> {
  const [subject = "", ...tail] = args.split(/\s+/);
  const contains = (words: string[]) => {
    if (words.length === 0) return {};
    if (words[0]?.toLowerCase() !== "contains" || words.length < 2)
      throw invalidCheck(
        clause,
        `expected 'contains <text>' after ${subject || kind}, got '${words.join(" ")}'`,
      );
    return { contains: words.slice(1).join(" ") };
  };
  switch (kind) {
    case "artifact":
      if (subject === "") throw invalidCheck(clause, "artifact needs a path");
      return { kind: "artifact", path: subject, ...contains(tail) };
    case "tool_result": {
      if (subject === "") throw invalidCheck(clause, "tool_result needs a tool name");
      const status = tail[0]?.toLowerCase();
      const hasStatus = status === "success" || status === "error";
      return {
        kind: "tool_result",
        tool: subject,
        expect: { status: hasStatus ? status : "success", ...contains(hasStatus ? tail.slice(1) : tail) },
      };
    }
    case "approval":
      if (args === "") throw invalidCheck(clause, "approval needs the prompt a human answers");
      return { kind: "approval", prompt: args };
    case "judge":
    case "model_judge":
      if (args === "") throw invalidCheck(clause, "judge needs a rubric");
      return { kind: "model_judge", rubric: args };
    default:
      throw invalidCheck(clause, `unknown kind '${kind}'`);
  }
}

function invalidCheck(clause: string, problem: string): DirectiveError {
  return new DirectiveError(`Invalid --check '${clause}': ${problem}; ${CHECK_USAGE}`);
}
