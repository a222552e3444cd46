import { DirectiveError } from "../../goal/errors";
import { DIRECTIVE_FORMS, type Directive, parseDirective } from "../directive";

/**
 * The `/goal` slash command names the goal first, since a Slack channel is not bound to one goal:
 *
 *     /goal <goalId> status
 *     /goal <goalId> add-constraint <text>
 *     /goal <goalId> redirect <text>
 *
 * Slack sends what follows `/goal` as the command's `text`.
 */
export const SLACK_COMMAND_FORMS = DIRECTIVE_FORMS.map((form) => form.replace("/goal ", "/goal <goalId> "));

export interface SlackGoalCommand {
  readonly goalId: string;
  readonly directive: Directive;
}

/** Goal ids are `g-` + 26 characters from the API; anything id-like is accepted and looked up. */
const GOAL_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

const USAGE = `valid forms: ${SLACK_COMMAND_FORMS.join(", ")}`;
const SUBCOMMANDS: ReadonlySet<string> = new Set(["status", "add-constraint", "redirect"]);

/** Parses the command's text; throws DirectiveError naming what was wrong and the valid forms. */
export function parseSlackCommand(text: string): SlackGoalCommand {
  const match = /^\s*(\S+)\s*([\s\S]*)$/.exec(text);
  const goalId = match?.[1] ?? "";
  if (goalId === "" || !GOAL_ID.test(goalId) || SUBCOMMANDS.has(goalId.toLowerCase())) {
    throw new DirectiveError(`Invalid /goal command: the goal id comes first; ${USAGE}`);
  }
  try {
    return { goalId, directive: parseDirective(match?.[2] ?? "") };
  } catch (error) {
    if (!(error instanceof DirectiveError)) throw error;
    // The directive's own usage omits the goal id, which Slack needs: name the Slack forms instead.
    const problem = error.message
      .replace(/^Invalid \/goal directive: /, "")
      .replace(/; valid forms:[\s\S]*$/, "");
    throw new DirectiveError(`Invalid /goal command: ${problem}; ${USAGE}`, { cause: error });
  }
}
