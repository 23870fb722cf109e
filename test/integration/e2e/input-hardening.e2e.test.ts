/**
 * Issue 22 on the real `occ api` process and its PostgreSQL database: every refusal is a 400
 * in the envelope naming the rule or limit, and stores nothing (counted in the database and,
 * for Configurations, in the tenant namespace's ConfigMaps); what is accepted is returned
 * exactly as sent; keys sent in a query string, a header or a body never reach the log.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESOURCE_LABELS } from "../../../src/domain/tenant/resources.js";
import { openPostgres } from "../../../src/store/pg-db.js";
import type { Db } from "../../../src/store/db.js";
import { eventually } from "../../harness/kube.js";
import { parseRawResponse, rawHttp } from "../../harness/raw-http.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import { admin, prepareExternal } from "../compute/fixtures.js";
import { startControlPlane, type ControlPlane } from "./control-plane.js";
import { callApi } from "../../harness/api.js";

let plane: ControlPlane;
let db: Db;
let ns = "";
let k8sNamespace = "";

interface Envelope {
  error: { code: string; message: string };
  meta: { requestId: string };
}

/** A raw body (exact bytes) as the administrator. */
async function send(method: string, path: string, body: string | Buffer) {
  const res = await fetch(`${plane.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${plane.apiKey}`, "content-type": "application/json" },
    body,
  });
  return { status: res.status, body: (await res.json()) as Envelope & { data?: unknown } };
}

async function count(table: string, where = "true", params: string[] = []): Promise<number> {
  const rows = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM ${table} WHERE ${where}`,
    params,
  );
  return Number(rows.rows[0]?.n ?? "-1");
}

async function configMaps(): Promise<number> {
  const list = await admin.list("ConfigMap", {
    namespace: k8sNamespace,
  });
  return list.filter((c) => c.metadata.labels?.[RESOURCE_LABELS.configuration] !== undefined)
    .length;
}

function raw(request: string | Buffer): Promise<string> {
  return rawHttp(plane.apiUrl, request);
}

async function remove(path: string): Promise<number> {
  const res = await fetch(`${plane.apiUrl}${path}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${plane.apiKey}` },
  });
  return res.status;
}

function envelopeOf(response: string): { status: number; body: Envelope; requestId: string } {
  const parsed = parseRawResponse(response);
  return { ...parsed, body: parsed.body as Envelope };
}

function nested(levels: number): string {
  return `${"[".repeat(levels)}1${"]".repeat(levels)}`;
}

beforeAll(async () => {
  await grantChartClusterRoles();
  plane = await startControlPlane();
  db = openPostgres(plane.databaseUrl);
  const prepared = await prepareExternal();
  k8sNamespace = prepared.metadata?.name ?? "";
  await bindTenantRole(k8sNamespace, "occ-worker");
  const created = await callApi(plane, "POST", "/namespaces", {
    name: "input-hardening",
    existingNamespace: k8sNamespace,
  });
  ns = (created.body as { data: { id: string } }).data.id;
  await eventually("the Namespace is ready", async () => {
    const r = await callApi(plane, "GET", `/namespaces/${ns}`);
    return (r.body as { data: { status: string } }).data.status === "ready";
  });
}, 180_000);

afterAll(async () => {
  await db.close();
  await plane.stop();
});

describe("free-form documents are bounded before anything is written", () => {
  it("a Configuration nested ~4,060 levels is refused 400 naming the limit; nothing stored; the listing still answers", async () => {
    const before = { rows: await count("configurations"), maps: await configMaps() };
    const body = `{"kind":"agent","values":{"k":${nested(4060)}}}`;
    const r = await send("POST", `/namespaces/${ns}/configurations`, body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("INVALID_REQUEST");
    expect(r.body.error.message).toMatch(/limit of 64 levels/);
    // Just over the Configuration limit of 32 (the document itself is level 1).
    const over = await send(
      "POST",
      `/namespaces/${ns}/configurations`,
      `{"kind":"agent","values":{"k":${nested(32)}}}`,
    );
    expect(over.status).toBe(400);
    expect(over.body.error.message).toMatch(/limit of 32 levels of nesting \(it has 33\)/);
    const keys = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i]));
    const many = await send(
      "POST",
      `/namespaces/${ns}/configurations`,
      JSON.stringify({ kind: "agent", values: keys }),
    );
    expect(many.status).toBe(400);
    expect(many.body.error.message).toMatch(/limit of 1000 keys \(it has 1001\)/);
    const big = await send(
      "POST",
      `/namespaces/${ns}/configurations`,
      JSON.stringify({ kind: "agent", values: { k: "x".repeat(40_000) } }),
    );
    expect(big.status).toBe(400);
    expect(big.body.error.message).toMatch(/limit of 32768 bytes as compact JSON/);
    expect(await count("configurations")).toBe(before.rows);
    expect(await configMaps()).toBe(before.maps);
    const list = await callApi(plane, "GET", `/namespaces/${ns}/configurations`);
    expect(list.status).toBe(200);
  });

  it("at the limit it is stored and read back exactly; PATCH over the limit changes nothing", async () => {
    const deep = `{"kind":"agent","values":{"k":${nested(31)}}}`;
    const created = await send("POST", `/namespaces/${ns}/configurations`, deep);
    expect(created.status).toBe(201);
    const id = (created.body.data as { id: string }).id;
    const patch = await send(
      "PATCH",
      `/namespaces/${ns}/configurations/${id}`,
      `{"values":{"k":${nested(4060)}}}`,
    );
    expect(patch.status).toBe(400);
    const patch33 = await send(
      "PATCH",
      `/namespaces/${ns}/configurations/${id}`,
      `{"values":{"k":${nested(32)}}}`,
    );
    expect(patch33.status).toBe(400);
    const row = await db.query<{ generation: number }>(
      "SELECT generation FROM configurations WHERE id = $1",
      [id],
    );
    expect(row.rows[0]?.generation).toBe(1);
    const read = await callApi(plane, "GET", `/namespaces/${ns}/configurations/${id}`);
    expect(read.status).toBe(200);
    expect(JSON.stringify((read.body as { data: { values: unknown } }).data.values)).toBe(
      `{"k":${nested(31)}}`,
    );
    const list = await callApi(plane, "GET", `/namespaces/${ns}/configurations`);
    expect(list.status).toBe(200);
    expect(await remove(`/namespaces/${ns}/configurations/${id}`)).toBe(204);
  });
});

describe("Configuration values are never silently changed", () => {
  it.each([
    ["1e400 (Infinity)", '{"a":1e400}', /number 1e400 cannot be stored exactly/],
    ["-0", '{"a":-0}', /number -0 cannot be stored exactly/],
    ["-0.0e5", '{"a":[1,-0.0e5]}', /number -0.0e5/],
    ["a 20-digit integer", '{"a":12345678901234567890}', /number 12345678901234567890/],
    ["1e-400 (underflow)", '{"a":1e-400}', /number 1e-400/],
    ["NUL", '{"a":"x\\u0000y"}', /\/body\/values\/a holds a NUL character/],
    ["an unpaired surrogate", '{"a":["\\ud800"]}', /\/body\/values\/a\/0 holds an unpaired/],
    ["a NUL key", '{"a\\u0000":1}', /\/body\/values holds a NUL character/],
    [
      "a key sent twice",
      '{"a":{"b":1,"\\u0062":2}}',
      /\/body\/values\/a\/b: the key "b" appears twice in one object; send each key once/,
    ],
  ])("%s is refused 400 and nothing is stored", async (_label, values, message) => {
    const rows = await count("configurations");
    const maps = await configMaps();
    const r = await send(
      "POST",
      `/namespaces/${ns}/configurations`,
      `{"kind":"agent","values":${values}}`,
    );
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("INVALID_REQUEST");
    expect(r.body.error.message).toMatch(message);
    expect(await count("configurations")).toBe(rows);
    expect(await configMaps()).toBe(maps);
  });

  it("numbers that round-trip are accepted and read back with the same value", async () => {
    const r = await send(
      "POST",
      `/namespaces/${ns}/configurations`,
      '{"kind":"agent","values":{"a":1.0,"b":1e2,"c":-1.5e-7,"d":9007199254740991,"e":0.1}}',
    );
    expect(r.status).toBe(201);
    const id = (r.body.data as { id: string }).id;
    const read = await callApi(plane, "GET", `/namespaces/${ns}/configurations/${id}`);
    expect((read.body as { data: { values: unknown } }).data.values).toEqual({
      a: 1,
      b: 100,
      c: -1.5e-7,
      d: 9007199254740991,
      e: 0.1,
    });
    expect(await remove(`/namespaces/${ns}/configurations/${id}`)).toBe(204);
  });
});

describe("display names follow the character policy on every resource", () => {
  const routes = (): [string, string, (name: string) => unknown][] => [
    ["namespaces", "/namespaces", (name) => ({ name })],
    ["principals", "/principals", (name) => ({ kind: "user", name })],
    ["roles", "/roles", (name) => ({ name, permissions: [] })],
    ["secrets", `/namespaces/${ns}/secrets`, (name) => ({ name, value: "v" })],
    ["service_accounts", `/namespaces/${ns}/service-accounts`, (name) => ({ name })],
    [
      "agents",
      `/namespaces/${ns}/agents`,
      (name) => ({
        name,
        configurationId: "cfg_00000000-0000-4000-8000-000000000000",
        executionMode: "embedded",
      }),
    ],
  ];
  const names: [string, string, RegExp][] = [
    [
      "a right-to-left override",
      "evil\u202Etxt.exe",
      /bidirectional control characters \(U\+202E at position 4\)/,
    ],
    ["a right-to-left isolate", "a\u2067b", /bidirectional control characters \(U\+2067/],
    ["a zero-width space", "ad\u200Bmin", /invisible format characters \(Unicode Cf\) \(U\+200B/],
    ["a BOM", "\uFEFFadmin", /invisible format characters \(Unicode Cf\) \(U\+FEFF/],
    ["a lone space", " ", /must not start or end with whitespace/],
    ["a trailing space", "admin ", /must not start or end with whitespace/],
    ["a decomposed é", "cafe\u0301", /Normalization Form C/],
    [
      "a trailing Hangul filler",
      "admin\u3164",
      /invisible or blank characters \(U\+3164 at position 5\); remove it/,
    ],
    [
      "a trailing braille blank",
      "admin\u2800",
      /invisible or blank characters \(U\+2800 at position 5\)/,
    ],
    [
      "a Cyrillic а in a Latin name",
      "p\u0430ypal",
      /not Latin and Cyrillic together .*\(U\+0430 at position 1\)/,
    ],
    ["a no-break space inside", "a\u00A0b", /whitespace other than the plain space \(U\+00A0/],
  ];
  it("every name rule is refused 400 naming the rule, on every resource, storing nothing", async () => {
    for (const [table, path, bodyOf] of routes()) {
      const before = await count(table);
      for (const [label, name, rule] of names) {
        const r = await send("POST", path, JSON.stringify(bodyOf(name)));
        expect(r.status, `${table}: ${label}`).toBe(400);
        expect(r.body.error.code).toBe("INVALID_REQUEST");
        expect(r.body.error.message, `${table}: ${label}`).toMatch(rule);
      }
      expect(await count(table), table).toBe(before);
    }
  });

  it("invalid UTF-8 is refused, not replaced", async () => {
    const before = await count("principals");
    const body = Buffer.concat([
      Buffer.from('{"kind":"user","name":"bad'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const r = await send("POST", "/principals", body);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/not valid UTF-8/);
    expect(await count("principals")).toBe(before);
  });
});

describe("every error is the envelope, on the wire", () => {
  const host = () => new URL(plane.apiUrl).host;
  it.each([
    [
      "a control character in Authorization",
      () => `GET /namespaces HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer a\x01b\r\n\r\n`,
      400,
      "INVALID_REQUEST",
    ],
    [
      "a 20 KiB URL",
      () => `GET /namespaces?x=${"a".repeat(20_000)} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`,
      431,
      "HEADERS_TOO_LARGE",
    ],
    [
      "20 KiB of headers",
      () => `GET /namespaces HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      431,
      "HEADERS_TOO_LARGE",
    ],
    ["not HTTP", () => "HELLO\r\n\r\n", 400, "INVALID_REQUEST"],
    [
      "an HTTP/1.1 request without Host",
      () => `GET /namespaces HTTP/1.1\r\nConnection: close\r\n\r\n`,
      400,
      "INVALID_REQUEST",
    ],
    [
      "an Expect other than 100-continue",
      () =>
        `POST /namespaces HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${plane.apiKey}\r\nContent-Type: application/json\r\nExpect: 200-ok\r\nContent-Length: 15\r\n\r\n{"name":"exp1"}`,
      417,
      "EXPECTATION_FAILED",
    ],
    [
      "CONNECT",
      () => `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`,
      405,
      "METHOD_NOT_ALLOWED",
    ],
    [
      "an unknown route",
      () => `GET /nowhere HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`,
      404,
      "NOT_FOUND",
    ],
    [
      "a method the path does not serve",
      () => `PUT /namespaces HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`,
      405,
      "METHOD_NOT_ALLOWED",
    ],
    [
      "a body over 64 KiB",
      () =>
        `POST /namespaces HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\nAuthorization: Bearer ${plane.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n${"a".repeat(70_000)}`,
      413,
      "PAYLOAD_TOO_LARGE",
    ],
    [
      "text/plain",
      () =>
        `POST /namespaces HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\nAuthorization: Bearer ${plane.apiKey}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi`,
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    ],
  ])("%s → the envelope", async (_label, request, status, code) => {
    const before = await count("namespaces");
    const res = envelopeOf(await raw(request()));
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.meta.requestId).toBe(res.requestId);
    expect(res.requestId).toMatch(/^req_/);
    expect(await count("namespaces")).toBe(before);
  });
});

describe("API keys never reach the log", () => {
  it("a key sent in a query string, a header and a body is not in the API's log", async () => {
    // `occ_<16 hex>_<43 base64url>`: the secret may itself contain `_`, so cut the prefix off.
    const secret = plane.apiKey.slice("occ_0123456789abcdef_".length);
    expect(secret).toHaveLength(43);
    await fetch(`${plane.apiUrl}/namespaces?api_key=${plane.apiKey}`);
    await fetch(`${plane.apiUrl}/namespaces?limit=5&token=${plane.apiKey}`, {
      headers: { authorization: `Bearer ${plane.apiKey}` },
    });
    await fetch(`${plane.apiUrl}/namespaces`, {
      headers: { "x-api-key": plane.apiKey, authorization: `Bearer ${plane.apiKey}x` },
    });
    await send("POST", "/namespaces", JSON.stringify({ name: "log-probe", apiKey: plane.apiKey }));
    await raw(
      `GET /namespaces?k=${plane.apiKey} HTTP/1.1\r\nAuthorization: Bearer \x01${plane.apiKey}\r\n\r\n`,
    );
    await eventually("the requests are logged", () =>
      Promise.resolve(plane.apiOutput.some((l) => l.includes('"url":"/namespaces?…"'))),
    );
    const log = plane.apiOutput.join("\n");
    expect(log).toContain("client error");
    expect(log).not.toContain(secret);
  });
});
