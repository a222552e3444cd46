/** The Slack door's routes on the goals API: the Request URLs to give the Slack app. */
export const SLACK_ROUTES = {
  /** "Interactivity & Shortcuts" Request URL: Approve / Reject clicks. */
  interactions: "/slack/interactions",
  /** The `/goal` slash command's Request URL. */
  commands: "/slack/commands",
} as const;
