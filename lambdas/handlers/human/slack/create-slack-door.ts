import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { GoalLoopsError } from "../../../core/goal/errors";
import { clip } from "../../../core/goal/text";
import { refuseReplay } from "../../../core/human/slack/replay-guard";
import { SLACK_ROUTES } from "../../../core/human/slack/slack-routes";
import { SlackSignatureError, verifySlackRequest } from "../../../core/human/slack/verify-signature";
import { errorJson } from "../../api/http-responses";
import { ephemeral } from "./slack-answers";
import { handleCommand } from "./slack-commands";
import type { SlackDoorDeps } from "./slack-door-deps";
import { handleInteraction } from "./slack-interactions";

export type SlackDoor = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

type Route = (deps: SlackDoorDeps, rawBody: string) => Promise<APIGatewayProxyResult>;

const ROUTES: ReadonlyMap<string, Route> = new Map([
  [SLACK_ROUTES.interactions, handleInteraction],
  [SLACK_ROUTES.commands, handleCommand],
]);

function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

/** The body exactly as Slack sent it: the signature covers these bytes, not a parsed form. */
function rawBodyOf(event: APIGatewayProxyEvent): string {
  if (event.body === null || event.body === undefined) return "";
  return event.isBase64Encoded ? Buffer.from(event.body, "base64").toString("utf8") : event.body;
}

/**
 * Slack's door: `POST /slack/interactions` and `POST /slack/commands`. API Gateway lets these
 * through without IAM auth because Slack cannot sign with SigV4; instead every request must carry
 * Slack's v0 signature over its raw body, a timestamp within five minutes, and a signature never
 * seen before. Anything else is a 401 before a byte of the body is parsed, and nothing changes.
 */
export function createSlackDoor(deps: SlackDoorDeps): SlackDoor {
  return async (event) => {
    const requestId = event.requestContext?.requestId ?? "unknown";
    const route = ROUTES.get(event.path);
    if (route === undefined) {
      return errorJson(404, { code: "RouteNotFound", message: `No route for ${event.path}` });
    }
    if (event.httpMethod.toUpperCase() !== "POST") {
      return errorJson(
        405,
        { code: "MethodNotAllowed", message: `Only POST is allowed on ${event.path}` },
        { allow: "POST" },
      );
    }
    const rawBody = rawBodyOf(event);
    try {
      const timestamp = header(event, "x-slack-request-timestamp");
      const signature = header(event, "x-slack-signature");
      const previousSigningSecret = await deps.previousSigningSecret?.();
      verifySlackRequest({
        signingSecret: await deps.signingSecret(),
        ...(previousSigningSecret === undefined ? {} : { previousSigningSecret }),
        timestamp,
        signature,
        rawBody,
        now: deps.now(),
      });
      // Both are set once verification passed.
      await refuseReplay(deps.replayGuard, signature ?? "", timestamp ?? "");
    } catch (error) {
      if (!(error instanceof SlackSignatureError)) throw error;
      deps.logger.warn("slack request refused", { requestId, path: event.path, reason: error.reason });
      return errorJson(401, { code: "SlackSignatureInvalid", message: error.message, reason: error.reason });
    }
    try {
      return await route(deps, rawBody);
    } catch (error) {
      // Slack shows nothing of a 5xx to the person who clicked: answer 200 with what happened.
      if (error instanceof GoalLoopsError && !error.retryable) {
        // Bad input the core refused: repeating it would be refused again, so say so.
        deps.logger.warn("slack request refused", { requestId, path: event.path, error: error.name });
        return ephemeral(`goal-loops refused this (request ${requestId}): ${clip(error.message, 500)}`);
      }
      deps.logger.error("slack request failed", { requestId, path: event.path, error });
      return ephemeral(
        `goal-loops could not finish this (request ${requestId}); try again: repeating it is safe.`,
      );
    }
  };
}
