import http from "node:http";
import type { AddressInfo } from "node:net";

/** An HTTP proxy on 127.0.0.1 that shows every request to `record`, then forwards it to `target`. */
export interface RecordingProxy {
  readonly url: string;
  /** Where requests go; set once the real endpoint is up (the stack starts it itself). */
  target: string | undefined;
  /**
   * How long each request waits before it is forwarded (a network's round trip), 0 by default: with
   * it, requests a client sends together overlap on the proxy even when the server answers each
   * before it reads the next.
   */
  delayMs: number;
  close(): Promise<void>;
}

export interface RecordingProxyOptions {
  /**
   * Sees each request's head and whole body before it is forwarded; what it returns, if anything,
   * is called when the answer has been sent back (the request's round trip as its client sees it).
   */
  readonly record: (request: http.IncomingMessage, body: Buffer) => (() => void) | undefined;
  /**
   * Send the target's host instead of the client's. Off for a service that checks signatures
   * (S3): the SDK signed the request for the proxy's host.
   */
  readonly rewriteHost: boolean;
}

/** Starts the proxy. Until `target` is set it answers 503; a failed forward answers 502. */
export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  const proxy: { target: string | undefined; delayMs: number } = { target: undefined, delayMs: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const answered = options.record(req, body);
      if (answered) res.on("finish", answered);
      const target = proxy.target;
      if (target === undefined) {
        res.writeHead(503).end();
        return;
      }
      const headers = options.rewriteHost ? { ...req.headers, host: new URL(target).host } : req.headers;
      const forwarded = http.request(
        `${target}${req.url ?? "/"}`,
        { method: req.method, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on("error", () => res.writeHead(502).end());
      if (proxy.delayMs > 0) setTimeout(() => forwarded.end(body), proxy.delayMs);
      else forwarded.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get target() {
      return proxy.target;
    },
    set target(value) {
      proxy.target = value;
    },
    get delayMs() {
      return proxy.delayMs;
    },
    set delayMs(value) {
      proxy.delayMs = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
