import { createServer, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadTokenError, bearerFetch } from "../../../lib/client/bearer-fetch";
import { clientFor } from "../../../lib/local/cli/api-target";
import { listen, type RunningServer } from "../../../lib/local/shared/listen";

const TOKEN = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl";

describe("bearerFetch (--token, GOAL_LOOPS_TOKEN)", () => {
  let server: RunningServer;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = await listen(
      createServer((req, res) => {
        seen.push(req.headers);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ items: [] }));
      }),
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  it("sends the token as Authorization: Bearer, without a pasted prefix or newline, keeping other headers", async () => {
    // Act
    await bearerFetch(`Bearer ${TOKEN}\n`)(`${server.url}/goals`, { headers: { "x-extra": "1" } });

    // Assess
    expect(seen.at(-1)).toMatchObject({ authorization: `Bearer ${TOKEN}`, "x-extra": "1" });
  });

  it("makes the CLI's client send the token, to a local port as to a deployed URL", async () => {
    // Prepare
    const port = Number(new URL(server.url).port);

    // Act
    const client = await clientFor({ port, token: TOKEN });
    await client?.listGoals();

    // Assess
    expect(seen.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it.each([
    ["no JWT", "hello"],
    ["two parts", "a.b"],
    ["a header injection", `${TOKEN}\r\nx-admin: 1`],
    ["a huge token", `${"a".repeat(9000)}.b.c`],
  ])("refuses %s before sending anything", (_case, token) => {
    // Act + Assess
    expect(() => bearerFetch(token)).toThrow(BadTokenError);
  });
});
