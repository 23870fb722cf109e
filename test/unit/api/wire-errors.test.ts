/**
 * The errors node's HTTP server and Fastify produce outside any route, on a listening server:
 * a request that does not arrive in time (408), requests that arrive while the server is
 * closing (503), and the refusals node would make itself — no Host (400), an unsupported
 * Expect (417), CONNECT (405) — are answered in the error envelope like every other error.
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { parseRawResponse } from "../../harness/raw-http.js";
import { apiForFile } from "../../harness/api-app.js";
import { timeoutCheckIntervalMs } from "../../../src/api/client-errors.js";

const fx = await apiForFile({ requestTimeoutMs: 400 });
const url = new URL(await fx.app.listen({ host: "127.0.0.1", port: 0 }));

/** `res` is `status` in the error envelope: `code`, `message` (or its pattern), its request ID. */
function expectEnvelope(
  res: ReturnType<typeof parseRawResponse>,
  status: number,
  code: string,
  message: string | RegExp,
): void {
  expect(res.status).toBe(status);
  expect(res.requestId).toMatch(/^req_/);
  const text: unknown = typeof message === "string" ? message : expect.stringMatching(message);
  expect(res.body).toEqual({ error: { code, message: text }, meta: { requestId: res.requestId } });
}

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

describe("the refusals node makes itself are the envelope", () => {
  const key = () => fx.adminKey;
  it.each([
    [
      "an HTTP/1.1 request without Host",
      () =>
        `GET /namespaces HTTP/1.1\r\nAuthorization: Bearer ${key()}\r\nConnection: close\r\n\r\n`,
      400,
      "INVALID_REQUEST",
      /no Host header.*send Host:/,
    ],
    [
      "an empty Host",
      () => `GET /namespaces HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n`,
      400,
      "INVALID_REQUEST",
      /no Host header/,
    ],
    [
      "an Expect other than 100-continue",
      () =>
        `POST /namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key()}\r\n` +
        'Content-Type: application/json\r\nExpect: 200-ok\r\nContent-Length: 17\r\n\r\n{"name":"expect"}',
      417,
      "EXPECTATION_FAILED",
      /Expect: 100-continue/,
    ],
    [
      "CONNECT",
      () => "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
      405,
      "METHOD_NOT_ALLOWED",
      /CONNECT is not served/,
    ],
  ])("%s → its status in the envelope with x-request-id, nothing stored", async (...c) => {
    const [, request, status, code, message] = c;
    const before = await namespaceCount();
    expectEnvelope(parseRawResponse(await converse([request()]).done), status, code, message);
    expect(await namespaceCount()).toBe(before);
  });

  it("HTTP/1.0 needs no Host; Expect: 100-continue still works", async () => {
    const old = parseRawResponse(await converse(["GET /healthz HTTP/1.0\r\n\r\n"]).done);
    expect(old.status).toBe(200);
    const body = '{"name":"continued"}';
    const out = await converse([
      `POST /namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key()}\r\n` +
        `Content-Type: application/json\r\nExpect: 100-continue\r\nConnection: close\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    ]).done;
    expect(out).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    expect(parseRawResponse(out.slice(out.indexOf("HTTP/1.1", 1))).status).toBe(201);
  });
});

describe("errors outside any route are the envelope", () => {
  it("a request whose body never finishes arriving: 408 REQUEST_TIMEOUT, nothing stored", async () => {
    const before = await namespaceCount();
    const started = Date.now();
    const head =
      `POST /namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fx.adminKey}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 40\r\n\r\n" +
      '{"name":"slow';
    const res = parseRawResponse(await converse([head]).done);
    expectEnvelope(
      res,
      408,
      "REQUEST_TIMEOUT",
      "The request did not arrive in time; send it again.",
    );
    expect(await namespaceCount()).toBe(before);
    // At the timeout, late by one check interval (50 ms here) and the scheduling of a busy
    // machine (a generous bound: the interval itself is asserted below).
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(400 + timeoutCheckIntervalMs(400) + 1_500);
  });

  it.each([
    [400, 50],
    [5_000, 500],
    [30_000, 1_000],
    [120_000, 1_000],
  ])("a %i ms request timeout is checked every %i ms (30 s fires by 31 s, not 37 s)", (t, ms) => {
    expect(timeoutCheckIntervalMs(t)).toBe(ms);
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
    expectEnvelope(
      parseRawResponse(second),
      503,
      "DEPENDENCY_UNAVAILABLE",
      "The API is shutting down; retry shortly.",
    );
  });
});
