/**
 * R6 (quality.md §3): property-based fuzzing of the Namespace routes' bodies, paths and
 * headers. Whatever arrives, the API never answers 500, never crashes, and every failure is
 * the error envelope with a code from the table, a message within 256 characters and the
 * request's ID — and every success is the data envelope.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { call } from "../../harness/api-app.js";
import { RUNS, useListeningApi, wellFormed } from "./fuzz-properties.js";

const live = useListeningApi();

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
    fc.constant(live.fx.adminKey),
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
          await call(live.fx.app, "POST", "/namespaces", {
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
            await call(live.fx.app, method, url, {
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
          wellFormed(
            await call(live.fx.app, method, url, key === undefined ? {} : { key }),
            method,
          );
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
        const r = await call(live.fx.app, "GET", `/namespaces?${params.toString()}`, {
          key: live.fx.adminKey,
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
            await call(live.fx.app, method, "/namespaces", {
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
