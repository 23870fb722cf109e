/**
 * The envelope and every error code path of the API (control-plane.md §2): `x-request-id` on
 * every response and equal to `meta.requestId`; each code of the table reached for real and
 * answered in the error envelope; unknown fields and query parameters, oversized bodies and
 * wrong content types refused; the OpenAPI document generated from the routes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../../src/api/errors.js";
import type { ErrorCode } from "../../../src/contract/errors.js";
import { call, errorOf, startApi, type ApiFixture, type Reply } from "../../harness/api-app.js";

let fx: ApiFixture;
beforeAll(async () => {
  fx = await startApi({
    contentChecks: [
      {
        singular: "Widget",
        plural: "Widgets",
        count: (_q, id) => {
          // A bug in a content check: must become 500 INTERNAL_ERROR, not leak its text.
          if (id === "ns_bug") throw new TypeError("secret internal detail");
          return Promise.resolve(0);
        },
      },
    ],
  });
  await fx.raw.query(
    "INSERT INTO namespaces (id, name, placement_mode) VALUES ('ns_bug', 'bug', 'managed')",
  );
});
afterAll(() => fx.close());

/** Asserts the error envelope with `code`, the matching status and a coherent request ID. */
function expectError(reply: Reply, code: ErrorCode): ReturnType<typeof errorOf> {
  const body = errorOf(reply);
  expect({ status: reply.status, code: body.error.code }).toEqual({
    status: ERROR_STATUS[code],
    code,
  });
  expect(body.error.message.length).toBeLessThanOrEqual(256);
  expect(reply.headers["x-request-id"]).toMatch(/^req_[0-9a-f-]{36}$/);
  expect(body.meta.requestId).toBe(reply.headers["x-request-id"]);
  return body;
}

describe("success envelope", () => {
  it("wraps data with meta.requestId equal to x-request-id, a fresh ID per request", async () => {
    const a = await call(fx.app, "GET", "/namespaces", { key: fx.adminKey });
    const b = await call(fx.app, "GET", "/healthz", { headers: { "x-request-id": "mine" } });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ meta: { requestId: a.headers["x-request-id"] } });
    expect(b.headers["x-request-id"]).not.toBe("mine");
    expect(b.headers["x-request-id"]).not.toBe(a.headers["x-request-id"]);
    expect(b.body).toEqual({
      data: { status: "ok" },
      meta: { requestId: b.headers["x-request-id"] },
    });
  });

  it("answers HEAD with the request ID too", async () => {
    const r = await call(fx.app, "HEAD", "/healthz");
    expect(r.status).toBe(200);
    expect(r.headers["x-request-id"]).toMatch(/^req_/);
  });
});

describe("every error code", () => {
  it("INVALID_REQUEST: unknown body field, wrong type, missing field — with details", async () => {
    const r = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: { name: "x", color: "red" },
    });
    expect(expectError(r, "INVALID_REQUEST").error.details).toEqual([
      { path: "/body/color", code: "unknown_field" },
    ]);
    const t = await call(fx.app, "POST", "/namespaces", { key: fx.adminKey, body: { name: 7 } });
    expect(expectError(t, "INVALID_REQUEST").error.details).toEqual([
      { path: "/body/name", code: "invalid_type" },
    ]);
    const m = await call(fx.app, "POST", "/namespaces", { key: fx.adminKey, body: {} });
    expect(expectError(m, "INVALID_REQUEST").error.details).toEqual([
      { path: "/body/name", code: "required" },
    ]);
  });

  it("INVALID_REQUEST: a query parameter the route does not take, a bad limit, a bad cursor", async () => {
    const u = await call(fx.app, "GET", "/namespaces?verbose=1", { key: fx.adminKey });
    expect(expectError(u, "INVALID_REQUEST").error.details).toEqual([
      { path: "/querystring/verbose", code: "unknown_field" },
    ]);
    for (const url of ["/namespaces/ns_bug?expand=1", "/healthz?x=1"]) {
      const q = await call(fx.app, "GET", url, { key: fx.adminKey });
      expect(expectError(q, "INVALID_REQUEST").error.details?.[0]?.code).toBe("unknown_field");
    }
    const l = await call(fx.app, "GET", "/namespaces?limit=0", { key: fx.adminKey });
    expect(expectError(l, "INVALID_REQUEST").error.details).toEqual([
      { path: "/querystring/limit", code: "out_of_range" },
    ]);
    const c = await call(fx.app, "GET", "/namespaces?cursor=abc", { key: fx.adminKey });
    expect(expectError(c, "INVALID_REQUEST").error.details).toEqual([
      { path: "/querystring/cursor", code: "invalid_value" },
    ]);
  });

  it("INVALID_REQUEST for forged cursors the database could not even compare", async () => {
    const forge = (pos: unknown): string => Buffer.from(JSON.stringify(pos)).toString("base64url");
    for (const pos of [
      ["-271821-04-20T00:00:00.000Z", "ns_x"],
      ["+275760-09-13T00:00:00.000Z", "ns_x"],
      ["2026-01-01T00:00:00.000Z", "not-an-id"],
      ["2026-01-01T00:00:00.000Z"],
      { t: 1 },
    ]) {
      const r = await call(fx.app, "GET", `/namespaces?cursor=${forge(pos)}`, { key: fx.adminKey });
      expect(expectError(r, "INVALID_REQUEST").error.details).toEqual([
        { path: "/querystring/cursor", code: "invalid_value" },
      ]);
    }
  });

  it("INVALID_REQUEST: malformed JSON, a body on a route that takes none, a bad path ID", async () => {
    const j = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: '{"name": ',
      headers: { "content-type": "application/json" },
    });
    expectError(j, "INVALID_REQUEST");
    // GET and HEAD bodies carry no meaning in HTTP and are not read; DELETE bodies are refused.
    const b = await call(fx.app, "DELETE", "/namespaces/ns_bug", {
      key: fx.adminKey,
      body: { force: true },
    });
    expectError(b, "INVALID_REQUEST");
    const p = await call(fx.app, "GET", "/namespaces/not-an-id", { key: fx.adminKey });
    expect(expectError(p, "INVALID_REQUEST").error.details).toEqual([
      { path: "/params/id", code: "invalid_format" },
    ]);
  });

  it("UNAUTHENTICATED: no header, another scheme, a malformed or unknown key", async () => {
    for (const authorization of [
      undefined,
      `Basic ${Buffer.from("a:b").toString("base64")}`,
      "Bearer nope",
      "Bearer occ_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ]) {
      const r = await call(fx.app, "GET", "/namespaces", {
        headers: authorization === undefined ? {} : { authorization },
      });
      expectError(r, "UNAUTHENTICATED");
    }
  });

  it("FORBIDDEN, NOT_FOUND, RESOURCE_CONFLICT, NAMESPACE_NOT_EMPTY are covered per route", async () => {
    // Reached in namespaces-*.test.ts and iam-routes.test.ts; here only NOT_FOUND for an ID.
    const r = await call(fx.app, "GET", "/namespaces/ns_00000000-0000-4000-8000-000000000000", {
      key: fx.adminKey,
    });
    expectError(r, "NOT_FOUND");
  });

  it("NOT_FOUND for an unknown route and METHOD_NOT_ALLOWED with Allow for a wrong method", async () => {
    const n = await call(fx.app, "GET", "/nothing/here", { key: fx.adminKey });
    expectError(n, "NOT_FOUND");
    const m = await call(fx.app, "PUT", "/namespaces", { key: fx.adminKey });
    expectError(m, "METHOD_NOT_ALLOWED");
    expect(m.headers.allow).toBe("GET, HEAD, POST");
    const o = await call(fx.app, "PATCH", "/namespaces/ns_abc");
    expectError(o, "METHOD_NOT_ALLOWED");
    expect(o.headers.allow).toBe("DELETE, GET, HEAD");
  });

  it("PAYLOAD_TOO_LARGE above 64 KiB, while exactly 64 KiB is read (and then judged)", async () => {
    const pad = (n: number): string => {
      const head = '{"name":"';
      const tail = '"}';
      return head + "x".repeat(n - head.length - tail.length) + tail;
    };
    const headers = { "content-type": "application/json" };
    const at = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: pad(64 * 1024),
      headers,
    });
    expect(expectError(at, "INVALID_REQUEST").error.details).toEqual([
      { path: "/body/name", code: "too_long" },
    ]);
    const over = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: pad(64 * 1024 + 1),
      headers,
    });
    expectError(over, "PAYLOAD_TOO_LARGE");
  });

  it("UNSUPPORTED_MEDIA_TYPE for anything but JSON; JSON with a charset is fine", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const r = await call(fx.app, "POST", "/namespaces", {
        key: fx.adminKey,
        body: "name=x",
        headers: { "content-type": type },
      });
      expectError(r, "UNSUPPORTED_MEDIA_TYPE");
    }
    const ok = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: JSON.stringify({ name: "charset" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(ok.status).toBe(201);
  });

  it("INTERNAL_ERROR for a bug: a generic message, the cause logged once, not returned", async () => {
    const before = fx.logs.length;
    const r = await call(fx.app, "DELETE", "/namespaces/ns_bug", { key: fx.adminKey });
    const body = expectError(r, "INTERNAL_ERROR");
    expect(r.text).not.toContain("secret internal detail");
    expect(body.error.message).toBe("An internal error occurred; it has been logged.");
    const logged = fx.logs.slice(before).filter((l) => l.includes("request failed"));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain("secret internal detail");
    const row = await fx.raw.query<{ status: string }>(
      "SELECT status FROM namespaces WHERE id = 'ns_bug'",
    );
    expect(row.rows[0]?.status).toBe("provisioning");
  });

  it("DEPENDENCY_UNAVAILABLE when the database fails, and /readyz says so", async () => {
    const read = await fx.db.whileFailing(
      (sql) => sql.includes("FROM namespaces"),
      () => call(fx.app, "GET", `/namespaces/ns_bug`, { key: fx.adminKey }),
    );
    expectError(read, "DEPENDENCY_UNAVAILABLE");
    const ready = await fx.db.whileFailing(
      (sql) => sql === "SELECT 1",
      () => call(fx.app, "GET", "/readyz"),
    );
    expectError(ready, "DEPENDENCY_UNAVAILABLE");
    expect((await call(fx.app, "GET", "/readyz")).status).toBe(200);
  });

  it("NAMESPACE_NOT_READY is in the table for the routes that will need it", () => {
    expect(ERROR_STATUS.NAMESPACE_NOT_READY).toBe(409);
  });
});
