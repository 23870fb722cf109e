/**
 * The errors node's HTTP server and Fastify produce outside any route, on a listening server:
 * a request that does not arrive in time (408) and requests that arrive while the server is
 * closing (503) are answered in the error envelope like every other error.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRawResponse } from "../../harness/raw-http.js";
import { startApi, type ApiFixture } from "./harness.js";

let fx: ApiFixture;
let url: URL;
beforeAll(async () => {
  fx = await startApi({ requestTimeoutMs: 400 });
  url = new URL(await fx.app.listen({ host: "127.0.0.1", port: 0 }));
});
afterAll(() => fx.close());

/** Opens a connection, writes `chunks` in order, and resolves with everything read. */
function converse(chunks: readonly string[]): { done: Promise<string>; write(s: string): void } {
  const socket = connect(Number(url.port), url.hostname);
  let out = "";
  socket.on("data", (d: Buffer) => (out += d.toString("utf8")));
  const done = new Promise<string>((resolve, reject) => {
    socket.on("error", reject);
    socket.on("close", () => {
      resolve(out);
    });
  });
  for (const c of chunks) socket.write(c);
  return {
    done,
    write: (s) => {
      socket.write(s);
    },
  };
}

async function namespaceCount(): Promise<number> {
  const r = await fx.raw.query<{ n: number }>("SELECT count(*)::int AS n FROM namespaces");
  return r.rows[0]?.n ?? -1;
}

describe("errors outside any route are the envelope", () => {
  it("a request whose body never finishes arriving: 408 REQUEST_TIMEOUT, nothing stored", async () => {
    const before = await namespaceCount();
    const head =
      `POST /namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fx.adminKey}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 40\r\n\r\n" +
      '{"name":"slow';
    const res = parseRawResponse(await converse([head]).done);
    expect(res.status).toBe(408);
    expect(res.body).toEqual({
      error: {
        code: "REQUEST_TIMEOUT",
        message: "The request did not arrive in time; send it again.",
      },
      meta: { requestId: res.requestId },
    });
    expect(res.requestId).toMatch(/^req_/);
    expect(await namespaceCount()).toBe(before);
  });

  it("headers that never finish arriving: 408 in the envelope", async () => {
    const res = parseRawResponse(await converse(["GET /namespaces HTTP/1.1\r\nHost: x\r\n"]).done);
    expect(res.status).toBe(408);
    expect((res.body as { error: { code: string } }).error.code).toBe("REQUEST_TIMEOUT");
  });

  it("a request arriving while the server closes: 503 DEPENDENCY_UNAVAILABLE in the envelope", async () => {
    // A is held at its listing statement; B is sent behind it on the same connection once
    // close() has begun, so it reaches the app while the server closes.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let reached: () => void = () => undefined;
    const atStatement = new Promise<void>((r) => (reached = r));
    fx.db.beforeStatement(
      (sql) => sql.includes("namespaces"),
      async () => {
        reached();
        await held;
      },
    );
    const a = `GET /namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fx.adminKey}\r\n\r\n`;
    const b = `GET /namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fx.adminKey}\r\nConnection: close\r\n\r\n`;
    const conversation = converse([a]);
    await atStatement;
    const closing = fx.app.close();
    await new Promise((r) => setTimeout(r, 50));
    conversation.write(b);
    await new Promise((r) => setTimeout(r, 50));
    release();
    const out = await conversation.done;
    await closing;
    const second = out.slice(out.indexOf("HTTP/1.1", 1));
    const res = parseRawResponse(second);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      error: {
        code: "DEPENDENCY_UNAVAILABLE",
        message: "The API is shutting down; retry shortly.",
      },
      meta: { requestId: res.requestId },
    });
  });
});
