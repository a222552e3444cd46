/**
 * The hosts Slack sends `response_url`s on, over https only: `hooks.slack.com` for Slack
 * (docs.slack.dev, "Handling user interaction": every response_url is a hooks.slack.com URL) and
 * `hooks.slack-gov.com` for GovSlack, which runs on its own domain, slack-gov.com
 * (api.slack-gov.com/gov-slack/about). The request that carries the URL is signed, so a foreign
 * host means a leaked signing secret or a bug: the door refuses it rather than post anywhere else.
 */
export const SLACK_RESPONSE_URL_HOSTS: readonly string[] = ["hooks.slack.com", "hooks.slack-gov.com"];

/**
 * Whether `url` is one of Slack's response URLs: https, a Slack host, the default port, no
 * credentials. Anything `new URL` cannot parse (`javascript:…` parses, and fails the scheme) is not.
 */
export function isSlackResponseUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (
    parsed.protocol === "https:" &&
    SLACK_RESPONSE_URL_HOSTS.includes(parsed.hostname) &&
    parsed.port === "" &&
    parsed.username === "" &&
    parsed.password === ""
  );
}
