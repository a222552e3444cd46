import { DirectiveError } from "../goal/errors";
import type { RevisionType } from "../goal/goal-record";

/** A parsed `/goal` directive (Slack slash command, API, CLI). */
export type Directive =
  | { readonly kind: "status" }
  | { readonly kind: "add_constraint"; readonly text: string }
  | { readonly kind: "redirect"; readonly text: string };

export const DIRECTIVE_FORMS = [
  "/goal status",
  "/goal add-constraint <text>",
  "/goal redirect <text>",
] as const;

const USAGE = `valid forms: ${DIRECTIVE_FORMS.join(", ")} (the leading "/goal" is optional)`;

function invalid(problem: string): DirectiveError {
  return new DirectiveError(`Invalid /goal directive: ${problem}; ${USAGE}`);
}

/**
 * Parses `/goal status`, `/goal add-constraint <text>` or `/goal redirect <text>`. The leading
 * `/goal` is optional and the subcommand case-insensitive. The text is kept verbatim (trimmed): it
 * is revision data, never interpreted. Anything else throws DirectiveError naming what was wrong.
 */
export function parseDirective(text: string): Directive {
  const trimmed = text.trim();
  const body = /^\/goal(?=\s|$)/i.test(trimmed) ? trimmed.slice("/goal".length).trim() : trimmed;
  if (body === "") {
    throw invalid(trimmed === "" ? "empty input" : "missing subcommand");
  }
  const match = /^(\S+)\s*([\s\S]*)$/.exec(body);
  const command = match?.[1]?.toLowerCase() ?? "";
  const argument = match?.[2]?.trim() ?? "";
  switch (command) {
    case "status":
      if (argument !== "") throw invalid(`status takes no text, got '${argument}'`);
      return { kind: "status" };
    case "add-constraint":
      if (argument === "") throw invalid("missing text for add-constraint");
      return { kind: "add_constraint", text: argument };
    case "redirect":
      if (argument === "") throw invalid("missing text for redirect");
      return { kind: "redirect", text: argument };
    default:
      throw invalid(`unknown subcommand '${match?.[1] ?? body}'`);
  }
}

/** The revision type a text-carrying directive queues. */
export function directiveRevisionType(directive: Exclude<Directive, { kind: "status" }>): RevisionType {
  return directive.kind;
}
