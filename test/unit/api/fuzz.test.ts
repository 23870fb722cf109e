/**
 * R6 (quality.md §3): property-based fuzzing of the Namespace routes' bodies, paths and
 * headers. Whatever arrives, the API never answers 500, never crashes, and every failure is
 * the error envelope with a code from the table, a message within 256 characters and the
 * request's ID — and every success is the data envelope.
 *
 * The hostile shapes of issue 22 — deep nesting, bidirectional and invisible characters in
 * names, numbers and strings JSON cannot keep, control characters in headers, long URLs (the
 * last two on a listening server, since node's HTTP parser answers them) — must in addition
 * answer no 5xx at all, and a refused request must have stored nothing.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../../src/api/errors.js";
import { parseRawResponse, rawHttp } from "../../harness/raw-http.js";
import { call, errorOf, startApi, type ApiFixture, type Reply } from "../../harness/api-app.js";

const RUNS = Number(process.env.OCC_FUZZ_RUNS ?? 150);
const STATUSES = new Set<number>(Object.values(ERROR_STATUS));

let fx: ApiFixture;
let url = "";
beforeAll(async () => {
  fx = await startApi();
  url = await fx.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => fx.close());

/** The property every response must satisfy. */
function wellFormed(r: Reply, method: string): void {
  expect(r.status).not.toBe(500);
  expect(r.headers["x-request-id"]).toMatch(/^req_/);
  if (method === "HEAD") {
    expect(r.text).toBe("");
    expect(r.status === 200 || STATUSES.has(r.status)).toBe(true);
  } else if (r.status >= 400) {
    expect(STATUSES.has(r.status)).toBe(true);
    const body = errorOf(r);
    expect(ERROR_STATUS[body.error.code]).toBe(r.status);
    expect(body.error.message.length).toBeLessThanOrEqual(256);
    expect(body.meta.requestId).toBe(r.headers["x-request-id"]);
  } else if (r.text !== "") {
    expect(r.body).toMatchObject({
      data: expect.anything() as unknown,
      meta: { requestId: r.headers["x-request-id"] },
    });
  }
}

const methods = fc.constantFrom<"GET" | "POST" | "DELETE" | "PUT" | "PATCH" | "OPTIONS" | "HEAD">(
  "GET",
  "POST",
  "DELETE",
  "PUT",
  "PATCH",
  "OPTIONS",
  "HEAD",
);

/** Keys: the administrator's, a well-formed unknown one, garbage, none. */
const keys = (): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    fc.constant(fx.adminKey),
    fc.constant("occ_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x21-\x7e]/g, "")),
    fc.constant(undefined),
  );

/** Bodies close to valid ones, and anything JSON. */
const bodies = fc.oneof(
  fc.record(
    {
      name: fc.oneof(
        fc.string({ maxLength: 220 }),
        fc.string({ unit: "grapheme", maxLength: 220 }),
        fc.integer(),
      ),
      existingNamespace: fc.oneof(
        fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/),
        fc.constantFrom("default", "kube-system", "openshift-x", "oce-abc", "occ-system"),
        fc.string({ maxLength: 70 }),
        fc.constant(null),
      ),
      extra: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 4 }),
);

describe("R6: the Namespace routes under fuzzing", () => {
  it("POST /namespaces with arbitrary JSON bodies and keys", async () => {
    await fc.assert(
      fc.asyncProperty(bodies, keys(), async (body, key) => {
        wellFormed(
          await call(fx.app, "POST", "/namespaces", {
            ...(key === undefined ? {} : { key }),
            body: JSON.stringify(body),
            headers: { "content-type": "application/json" },
          }),
          "POST",
        );
      }),
      { numRuns: RUNS },
    );
  });

  it("arbitrary raw bodies and content types", async () => {
    const types = fc.oneof(
      fc.constantFrom(
        "application/json",
        "application/json; charset=utf-8",
        "application/json; charset=latin1",
        "application/JSON",
        "text/plain",
        "multipart/form-data; boundary=x",
        "application/octet-stream",
        "",
      ),
      fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
    );
    const raw = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString("latin1")),
      fc.constantFrom(
        '{"__proto__":{"x":1},"name":"p"}',
        '{"constructor":{"prototype":{}}}',
        "null",
        "[]",
        '"x"',
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        methods,
        fc.constantFrom("/namespaces", "/namespaces/ns_abc"),
        raw,
        types,
        keys(),
        async (method, url, payload, type, key) => {
          wellFormed(
            await call(fx.app, method, url, {
              ...(key === undefined ? {} : { key }),
              body: payload,
              headers: type === "" ? {} : { "content-type": type },
            }),
            method,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("arbitrary paths, query strings and methods under /namespaces", async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 120 }).map(encodeURIComponent),
      fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x21-\x7e]/g, "").replace(/[#?]/g, "")),
      fc.uuid().map((u) => `ns_${u}`),
      fc.constantFrom("..", "%2e%2e", "%00", "%ff", "ns_", `ns_${"a".repeat(200)}`, ""),
    );
    const query = fc.option(
      fc.dictionary(
        fc.constantFrom("limit", "cursor", "x", "limit[]"),
        fc.oneof(
          fc.string({ maxLength: 30 }).map(encodeURIComponent),
          // Well-formed cursors around forged positions: odd instants, odd IDs.
          fc
            .tuple(
              fc.oneof(
                fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
                fc.string({ maxLength: 30 }),
                fc.integer(),
              ),
              fc.oneof(
                fc.uuid().map((u) => `ns_${u}`),
                fc.string({ maxLength: 70 }),
              ),
            )
            .map((pos) => Buffer.from(JSON.stringify(pos)).toString("base64url")),
        ),
        { maxKeys: 3 },
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(
        methods,
        fc.array(segment, { maxLength: 3 }),
        query,
        keys(),
        async (method, segments, q, key) => {
          const qs =
            q === undefined
              ? ""
              : `?${Object.entries(q)
                  .map(([k, v]) => `${k}=${v}`)
                  .join("&")}`;
          const url = `/namespaces${segments.map((s) => `/${s}`).join("")}${qs}`;
          wellFormed(await call(fx.app, method, url, key === undefined ? {} : { key }), method);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("GET /namespaces with arbitrary paging parameters, forged cursors included", async () => {
    const cursor = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc
        .tuple(
          fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            fc.string(),
          ),
          fc.oneof(
            fc.uuid().map((u) => `ns_${u}`),
            fc.string({ maxLength: 70 }),
          ),
        )
        .map((pos) => Buffer.from(JSON.stringify(pos)).toString("base64url")),
    );
    const limit = fc.oneof(
      fc.integer({ min: -5, max: 2000 }).map(String),
      fc.string({ maxLength: 8 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.option(cursor), fc.option(limit), async (c, l) => {
        const params = new URLSearchParams();
        if (c !== null) params.set("cursor", c);
        if (l !== null) params.set("limit", l);
        const r = await call(fx.app, "GET", `/namespaces?${params.toString()}`, {
          key: fx.adminKey,
        });
        wellFormed(r, "GET");
      }),
      { numRuns: RUNS },
    );
  });

  it("arbitrary headers", async () => {
    const header = fc.tuple(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
      fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
    );
    await fc.assert(
      fc.asyncProperty(
        methods,
        fc.array(header, { maxLength: 6 }),
        keys(),
        async (method, headers, key) => {
          const h = Object.fromEntries(
            headers.filter(([k]) => !["content-length", "transfer-encoding", "host"].includes(k)),
          );
          wellFormed(
            await call(fx.app, method, "/namespaces", {
              ...(key === undefined ? {} : { key }),
              headers: h,
              ...(method === "POST" ? { body: JSON.stringify({ name: "header-fuzz" }) } : {}),
            }),
            method,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });
});

/** Rows a refused request must not have added to. */
async function stored(): Promise<string> {
  const r = await fx.raw.query<{ n: string }>(
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
    const ns = fx.defaultNamespaceId;
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
            call(fx.app, method, path, {
              key: fx.adminKey,
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
          () => call(fx.app, "POST", path, { key: fx.adminKey, body: bodyOf(name) }),
          "POST",
        );
        expect(r.status).toBe(400);
        expect(errorOf(r).error.message).toMatch(/must (not|be)/);
      }),
      { numRuns: RUNS },
    );
  });

  it("numbers and strings JSON cannot keep: 400, nothing stored", async () => {
    const ns = fx.defaultNamespaceId;
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
            call(fx.app, "POST", path, {
              key: fx.adminKey,
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
            `GET ${prefix}${"a".repeat(n)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fx.adminKey}\r\nConnection: close\r\n\r\n`,
        ),
    );
    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const before = await stored();
        const res = parseRawResponse(await rawHttp(url, req));
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
