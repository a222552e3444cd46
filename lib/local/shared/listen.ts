import { once } from "node:events";
import type { Server as HttpServer } from "node:http";
import type { Http2Server } from "node:http2";

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (port 0: a random free port) and returns the URL and an idempotent close. */
export async function listen(server: HttpServer | Http2Server, port = 0): Promise<RunningServer> {
  server.listen(port, "127.0.0.1");
  await Promise.race([
    once(server, "listening"),
    once(server, "error").then(([error]) => {
      throw error;
    }),
  ]);
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the server did not bind a TCP port");
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        // Keep-alive connections of SDK clients would hold close() open.
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
      return closed;
    },
  };
}
