/**
 * R6 (quality.md §3), the hostile shapes of issue 22 — deep nesting, bidirectional and
 * invisible characters in names, numbers and strings JSON cannot keep, control characters in
 * headers, long URLs (the last two on a listening server, since node's HTTP parser answers
 * them): besides the property of fuzz.test.ts, no 5xx at all, and a refused request must have
 * stored nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../../src/api/errors.js";
import { parseRawResponse, rawHttp } from "../../harness/raw-http.js";
import { call, errorOf, type Reply } from "../../harness/api-app.js";
import { RUNS, useListeningApi, wellFormed } from "./fuzz-properties.js";

const live = useListeningApi();

/** Rows a refused request must not have added to. */
async function stored(): Promise<string> {
  const r = await live.fx.raw.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM namespaces) || '/' || (SELECT count(*) FROM principals) || '/' ||
            (SELECT count(*) FROM roles) || '/' || (SELECT count(*) FROM configurations) ||
            '/' || (SELECT count(*) FROM work_items) AS n`,
  );
  return r.rows[0]?.n ?? "";
}

/** The stricter property of the hostile shapes: envelope, no 5xx, a refusal stores nothing. */
async function refusedCleanly(send: () => Promise<Reply>, method: string): Promise<Reply> {
  const before = await stored();
  const r = await send();
  wellFormed(r, method);
  expect(r.status).toBeLessThan(500);
  if (r.status >= 400) expect(await stored()).toBe(before);
  return r;
}

const deep = fc
  .tuple(
    fc.integer({ min: 33, max: 6000 }),
    fc.constantFrom("[", '{"k":'),
    fc.constantFrom("1", '"x"', "[]"),
  )
  .map(([levels, open, leaf]) => {
    const close = open === "[" ? "]" : "}";
    return `${open.repeat(levels)}${leaf}${close.repeat(levels)}`;
  });

/** Names that break the display-name policy: bidi, invisible, edge whitespace, not NFC. */
const badName = fc
  .tuple(
    fc.string({ maxLength: 20 }),
    fc.constantFrom(
      "\u202E",
      "\u2067",
      "\u200E",
      "\u200B",
      "\u200D",
      "\uFEFF",
      "\u00AD",
      "\u2060",
      "\u061C",
    ),
    fc.string({ maxLength: 20 }),
  )
  .map(([a, bad, b]) => `x${a}${bad}${b}x`)
  .chain((n) => fc.constantFrom(n, ` ${n}`, `${n} `, " ", "\u00A0", "cafe\u0301"));

/** Values JSON cannot keep: out-of-range numbers, -0, lost digits, NUL, lone surrogates. */
const unkeepable = fc.constantFrom(
  "1e400",
  "-1e309",
  "-0",
  "-0.0",
  "1e-400",
  "12345678901234567890",
  '"a\\u0000b"',
  '"\\ud800"',
  '"x\\udfff"',
  '{"\\u0000":1}',
);

describe("R6: the hostile shapes of issue 22", () => {
  it("deeply nested bodies on every body-taking route: 400, nothing stored", async () => {
    const ns = live.fx.defaultNamespaceId;
    const routes = fc.constantFrom(
      ["POST", "/namespaces", (v: string) => `{"name":"deep","extra":${v}}`] as const,
      ["POST", "/principals", (v: string) => `{"kind":"user","name":${v}}`] as const,
      ["POST", "/roles", (v: string) => `{"name":"r","permissions":${v}}`] as const,
      [
        "POST",
        `/namespaces/${ns}/configurations`,
        (v: string) => `{"kind":"agent","values":{"k":${v}}}`,
      ] as const,
      [
        "PATCH",
        `/namespaces/${ns}/configurations/cfg_00000000-0000-4000-8000-000000000000`,
        (v: string) => `{"values":{"k":${v}}}`,
      ] as const,
    );
    await fc.assert(
      fc.asyncProperty(routes, deep, async ([method, path, bodyOf], value) => {
        const r = await refusedCleanly(
          () =>
            call(live.fx.app, method, path, {
              key: live.fx.adminKey,
              body: bodyOf(value),
              headers: { "content-type": "application/json" },
            }),
          method,
        );
        expect(r.status).toBe(400);
      }),
      { numRuns: RUNS },
    );
  });

  it("names breaking the display-name policy: 400 naming the rule, nothing stored", async () => {
    const routes = fc.constantFrom(
      ["/namespaces", (name: string) => ({ name })] as const,
      ["/principals", (name: string) => ({ kind: "user", name })] as const,
      ["/roles", (name: string) => ({ name, permissions: [] })] as const,
    );
    await fc.assert(
      fc.asyncProperty(routes, badName, async ([path, bodyOf], name) => {
        const r = await refusedCleanly(
          () => call(live.fx.app, "POST", path, { key: live.fx.adminKey, body: bodyOf(name) }),
          "POST",
        );
        expect(r.status).toBe(400);
        expect(errorOf(r).error.message).toMatch(/must (not|be)/);
      }),
      { numRuns: RUNS },
    );
  });

  it("numbers and strings JSON cannot keep: 400, nothing stored", async () => {
    const ns = live.fx.defaultNamespaceId;
    const shapes = fc.constantFrom(
      ["/namespaces", (v: string) => `{"name":"n","x":${v}}`] as const,
      ["/principals", (v: string) => `{"kind":"user","name":"p","x":[${v}]}`] as const,
      [
        `/namespaces/${ns}/configurations`,
        (v: string) => `{"kind":"agent","values":{"k":${v}}}`,
      ] as const,
    );
    await fc.assert(
      fc.asyncProperty(shapes, unkeepable, async ([path, bodyOf], value) => {
        const r = await refusedCleanly(
          () =>
            call(live.fx.app, "POST", path, {
              key: live.fx.adminKey,
              body: bodyOf(value),
              headers: { "content-type": "application/json" },
            }),
          "POST",
        );
        expect(r.status).toBe(400);
      }),
      { numRuns: RUNS },
    );
  });

  it("control characters in headers and long URLs, on the wire: the envelope, no 5xx, nothing stored", async () => {
    const control = fc
      .tuple(
        fc.string({ maxLength: 10 }),
        fc.integer({ min: 0, max: 31 }),
        fc.string({ maxLength: 10 }),
      )
      .filter(([, c]) => c !== 9 && c !== 10 && c !== 13)
      .map(
        ([a, c, b]) =>
          `${a.replace(/[^\x20-\x7e]/g, "")}${String.fromCharCode(c)}${b.replace(/[^\x20-\x7e]/g, "")}`,
      );
    const request = fc.oneof(
      fc
        .tuple(fc.constantFrom("authorization", "content-type", "x-anything", "accept"), control)
        .map(
          ([h, v]) =>
            `POST /namespaces HTTP/1.1\r\nHost: x\r\n${h}: ${v}\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"name":"h"}`,
        ),
      fc
        .tuple(
          fc.integer({ min: 8_000, max: 40_000 }),
          fc.constantFrom("/namespaces/", "/namespaces?x=", "/"),
        )
        .map(
          ([n, prefix]) =>
            `GET ${prefix}${"a".repeat(n)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${live.fx.adminKey}\r\nConnection: close\r\n\r\n`,
        ),
    );
    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const before = await stored();
        const res = parseRawResponse(await rawHttp(live.url, req));
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        const body = res.body as {
          error: { code: keyof typeof ERROR_STATUS };
          meta: { requestId: string };
        };
        expect(ERROR_STATUS[body.error.code]).toBe(res.status);
        expect(body.meta.requestId).toBe(res.requestId);
        expect(await stored()).toBe(before);
      }),
      { numRuns: Math.min(RUNS, 60) },
    );
  });
});
