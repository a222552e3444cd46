import { DirectiveError } from "../goal/errors";
import type { RevisionType } from "../goal/goal-record";
import type { SuccessCheck } from "../goal/goal-spec";
import { parseCheckClause, splitChecks } from "./directive-checks";
import { DIRECTIVE_FORMS } from "./directive-forms";

/** A parsed `/goal` directive (Slack slash command, API, CLI). */
export type Directive =
  | { readonly kind: "status" }
  | { readonly kind: "add_constraint"; readonly text: string }
  | {
      readonly kind: "redirect";
      readonly text: string;
      /** The new contract's success checks (`--check …`); without them reconcile proposes checks a human confirms. */
      readonly checks?: readonly SuccessCheck[];
    };

export { DIRECTIVE_FORMS };

const USAGE = `valid forms: ${DIRECTIVE_FORMS.join(", ")} (the leading "/goal" is optional)`;

function invalid(problem: string): DirectiveError {
  return new DirectiveError(`Invalid /goal directive: ${problem}; ${USAGE}`);
}

/**
 * Parses `/goal status`, `/goal add-constraint <text>` or `/goal redirect <text>`, where a redirect
 * may state its new success checks (`--check <id>: <kind> …`, see directive-checks.ts). The leading
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
      if (splitChecks(argument).clauses.length > 0)
        throw invalid("only redirect states success checks (--check)");
      return { kind: "add_constraint", text: argument };
    case "redirect": {
      const { text: objective, clauses } = splitChecks(argument);
      if (objective === "") throw invalid("missing text for redirect");
      if (clauses.length === 0) return { kind: "redirect", text: objective };
      const checks = clauses.map(parseCheckClause);
      const repeated = checks.find((check, index) => checks.findIndex((c) => c.id === check.id) !== index);
      if (repeated) throw invalid(`check id '${repeated.id}' is given twice`);
      return { kind: "redirect", text: objective, checks };
    }
    default:
      throw invalid(`unknown subcommand '${match?.[1] ?? body}'`);
  }
}

/** The revision type a text-carrying directive queues. */
export function directiveRevisionType(directive: Exclude<Directive, { kind: "status" }>): RevisionType {
  return directive.kind;
}
