import type { IncomingMessage, ServerResponse } from "node:http";
import { startHttpServer } from "../unit/tools/support";

/** One request a fake received: path, headers and the body as text. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export interface RecordingFake {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

type Answer = { readonly status: number; readonly headers?: Record<string, string>; readonly body: unknown };

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** An HTTP server on 127.0.0.1 (`port`, any free one by default) that records every request and answers with `answer`. */
async function startRecordingFake(
  answer: (request: RecordedRequest) => Answer,
  port = 0,
): Promise<RecordingFake> {
  const requests: RecordedRequest[] = [];
  const server = await startHttpServer((request: IncomingMessage, response: ServerResponse) => {
    readBody(request).then((body) => {
      const recorded = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body,
      };
      requests.push(recorded);
      const { status, headers, body: answerBody } = answer(recorded);
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(JSON.stringify(answerBody));
    });
  }, port);
  return { origin: server.origin, requests, close: server.close };
}

/** The Slack channel id the Slack fake refuses (`ok: false, error: channel_not_found`). */
export const FAILING_SLACK_CHANNEL = "CFAILS000";
/** The recipient the SES fake refuses (400 MessageRejected). */
export const REJECTED_EMAIL = "rejected@example.com";
/** The webhook path the webhook fake answers with 500. */
export const FAILING_WEBHOOK_PATH = "/fail";

/** The fields of a Slack Web API call, form- or JSON-encoded as the client sent them. */
export function slackArguments(request: RecordedRequest): Record<string, string> {
  const type = String(request.headers["content-type"] ?? "");
  if (type.startsWith("application/json")) return JSON.parse(request.body) as Record<string, string>;
  return Object.fromEntries(new URLSearchParams(request.body));
}

/** Slack's Web API as `WebClient` reaches it at `slackApiUrl` = `<origin>/api/`. */
export function startSlackFake(): Promise<RecordingFake> {
  let ts = 0;
  return startRecordingFake((request) => {
    if (request.path !== "/api/chat.postMessage")
      return { status: 404, body: { ok: false, error: "unknown_method" } };
    const { channel } = slackArguments(request);
    if (channel === FAILING_SLACK_CHANNEL)
      return { status: 200, body: { ok: false, error: "channel_not_found" } };
    ts += 1;
    return { status: 200, body: { ok: true, channel, ts: `1700000000.${String(ts).padStart(6, "0")}` } };
  });
}

/** SES v2 `SendEmail` (REST JSON, `POST /v2/email/outbound-emails`) as the SDK reaches it at AWS_ENDPOINT_URL_SESV2. */
export function startSesFake(): Promise<RecordingFake> {
  let id = 0;
  return startRecordingFake((request) => {
    if (request.path !== "/v2/email/outbound-emails") return { status: 404, body: { message: "not found" } };
    const input = JSON.parse(request.body) as { Destination?: { ToAddresses?: string[] } };
    if (input.Destination?.ToAddresses?.includes(REJECTED_EMAIL)) {
      return {
        status: 400,
        headers: { "x-amzn-errortype": "MessageRejected" },
        body: { message: "Email address is not verified." },
      };
    }
    id += 1;
    return { status: 200, body: { MessageId: `ses-message-${id}` } };
  });
}

/** A webhook receiver: 200 on every path but FAILING_WEBHOOK_PATH, which answers 500. */
/** The webhook receiver on `port`: the one a configuration's webhook URLs name (a fixed port). */
export function startWebhookFake(port = 0): Promise<RecordingFake> {
  return startRecordingFake(
    (request) =>
      request.path === FAILING_WEBHOOK_PATH
        ? { status: 500, body: { error: "down" } }
        : { status: 200, body: { received: true } },
    port,
  );
}
