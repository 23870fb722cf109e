/**
 * R6 (quality.md §3): property-based fuzzing of the Namespace routes' bodies, paths and
 * headers. Whatever arrives, the API never answers 500, never crashes, and every failure is
 * the error envelope with a code from the table, a message within 256 characters and the
 * request's ID — and every success is the data envelope.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../../src/api/errors.js";
import { call, errorOf, startApi, type ApiFixture, type Reply } from "./harness.js";

const RUNS = Number(process.env.OCC_FUZZ_RUNS ?? 150);
const STATUSES = new Set<number>(Object.values(ERROR_STATUS));

let fx: ApiFixture;
beforeAll(async () => {
  fx = await startApi();
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
