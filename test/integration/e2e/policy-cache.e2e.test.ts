/**
 * The API's policy cache across processes (issue 20, P5): two `occ api` processes on one real
 * PostgreSQL, each serving keys and grants from its own cache. Whatever takes access away
 * through process A — revoking a key, removing a binding, deleting a principal — is refused by
 * process B within 1 s of A's answer, and audited; so is it after B's `LISTEN` connection was
 * killed and came back.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { openPostgres } from "../../../src/store/pg-db.js";
import type { Db } from "../../../src/store/db.js";
import { createTestDatabase } from "../../harness/db.js";
import { undoAfterAll } from "../../harness/undo.js";
import { occ, startOcc, type OccProcess } from "../../harness/occ.js";
import { requestApi } from "../../harness/api.js";

let dir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let adminKey: string;
let a: OccProcess & { match: RegExpMatchArray };
let b: OccProcess & { match: RegExpMatchArray };
const urlOf = (p: typeof a) => p.match[1] ?? "";

async function call(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: { data?: Record<string, unknown> } }> {
  const res = await requestApi(base, method, path, { key, body });
  return { status: res.status, body: res.body as { data?: Record<string, unknown> } };
}

let probes = 0;
/** `POST /namespaces` as `key` on `base`: the request whose key and grant B caches. */
const probe = (base: string, key: string) =>
  call(base, key, "POST", "/namespaces", { name: `cache-probe-${++probes}` });

/** A principal allowed `namespace:create`, with a key; B has served it (its cache is warm). */
async function creator(
  label: string,
): Promise<{ id: string; key: string; keyId: string; bindingId: string }> {
  const A = urlOf(a);
  const principal = await call(A, adminKey, "POST", "/principals", {
    kind: "service",
    name: label,
  });
  const role = await call(A, adminKey, "POST", "/roles", {
    name: `${label}-creator`,
    permissions: [{ action: "create", kind: "namespace" }],
  });
  const id = String(principal.body.data?.id);
  const binding = await call(A, adminKey, "POST", "/bindings", {
    principalId: id,
    roleId: String(role.body.data?.id),
  });
  const issued = await call(A, adminKey, "POST", `/principals/${id}/api-keys`, {});
  expect([principal.status, role.status, binding.status, issued.status]).toEqual([
    201, 201, 201, 201,
  ]);
  const key = String(issued.body.data?.key);
  for (let i = 0; i < 3; i++) expect((await probe(urlOf(b), key)).status).toBe(201);
  return { id, key, keyId: String(issued.body.data?.id), bindingId: String(binding.body.data?.id) };
}

/** Polls B for up to 1 s after the change; the status B answered and when. */
async function refusedByB(key: string, status: number): Promise<number> {
  const start = performance.now();
  let last = 0;
  while (performance.now() - start <= 1_000) {
    last = (await probe(urlOf(b), key)).status;
    if (last === status) return performance.now() - start;
    expect(last).toBe(201); // still the old answer, nothing else
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`process B still answered ${last} 1 s after the change (expected ${status})`);
}

async function auditCount(
  action: string,
  resourceId: string,
  outcome = "success",
): Promise<number> {
  const res = await db.query<{ n: string }>(
    "SELECT count(*) AS n FROM audit_events WHERE action = $1 AND resource_id = $2 AND outcome = $3",
    [action, resourceId, outcome],
  );
  return Number(res.rows[0]?.n);
}

const undo = undoAfterAll();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-policy-cache-"));
  undo(() => rm(dir, { recursive: true, force: true }));
  database = await createTestDatabase();
  undo(() => database.drop());
  db = openPostgres(database.url, { max: 2 });
  undo(() => db.close());
  const config = join(dir, "config.yaml");
  await writeFile(
    config,
    `kubernetes:\n  kubeconfig: ${inject("env").kubeconfigs["occ-worker"]}\n`,
  );
  const common = ["--database-url", database.url, "--config", config];
  occ(["migrate", "--database-url", database.url]);
  occ(["bootstrap", ...common, "--api-key-file", join(dir, "key")]);
  adminKey = (await readFile(join(dir, "key"), "utf8")).trim();
  const start = () => startOcc(["api", ...common, "--port", "0"], /listening on (http:\/\/\S+)/);
  a = await start();
  undo(() => a.stop());
  b = await start();
  undo(() => b.stop());
}, 120_000);

describe("policy cache: two occ api processes, one PostgreSQL", () => {
  it("a key revoked through A is refused by B (401) within 1 s, and the revocation is audited", async () => {
    const c = await creator("cache-revoke");
    expect((await call(urlOf(a), adminKey, "DELETE", `/api-keys/${c.keyId}`)).status).toBe(200);
    expect(await refusedByB(c.key, 401)).toBeLessThanOrEqual(1_000);
    expect(await auditCount("api_keys.revoke", c.keyId)).toBe(1);
    const key = await db.query("SELECT 1 FROM api_keys WHERE id = $1 AND revoked_at IS NOT NULL", [
      c.keyId,
    ]);
    expect(key.rows).toHaveLength(1);
  });

  it("a binding removed through A is refused by B (403, the denial audited) within 1 s", async () => {
    const c = await creator("cache-unbind");
    expect((await call(urlOf(a), adminKey, "DELETE", `/bindings/${c.bindingId}`)).status).toBe(200);
    expect(await refusedByB(c.key, 403)).toBeLessThanOrEqual(1_000);
    expect(await auditCount("bindings.delete", c.bindingId)).toBe(1);
    const denials = await db.query(
      `SELECT 1 FROM audit_events WHERE kind = 'authorization_denial' AND actor = $1
       AND action = 'namespaces.create' AND outcome = 'denied'`,
      [c.id],
    );
    expect(denials.rows.length).toBeGreaterThanOrEqual(1);
  });

  it("a principal deleted through A is refused by B (401) within 1 s, and the deletion is audited", async () => {
    const c = await creator("cache-delete");
    expect((await call(urlOf(a), adminKey, "DELETE", `/principals/${c.id}`)).status).toBe(200);
    expect(await refusedByB(c.key, 401)).toBeLessThanOrEqual(1_000);
    expect(await auditCount("principals.delete", c.id)).toBe(1);
  });

  it("after B's LISTEN connection is killed and re-established, a revocation still reaches B within 1 s", async () => {
    const c = await creator("cache-relisten");
    const listeners = () =>
      db
        .query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
           WHERE datname = current_database() AND query = 'LISTEN occ_policy'`,
        )
        .then((r) => r.rows.map((row) => row.pid));
    const before = await listeners();
    expect(before).toHaveLength(2);
    await db.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [
      before.map(String),
    ]);
    const deadline = Date.now() + 10_000;
    let now: number[] = [];
    while (Date.now() < deadline) {
      now = await listeners();
      if (now.length === 2 && now.every((pid) => !before.includes(pid))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(now.filter((pid) => !before.includes(pid))).toHaveLength(2);
    expect(b.output.some((line) => line.includes("policy cache: LISTEN lost"))).toBe(true);
    // Served again from the cache (refilled after the reconnect), then revoked through A.
    for (let i = 0; i < 3; i++) expect((await probe(urlOf(b), c.key)).status).toBe(201);
    expect((await call(urlOf(a), adminKey, "DELETE", `/api-keys/${c.keyId}`)).status).toBe(200);
    expect(await refusedByB(c.key, 401)).toBeLessThanOrEqual(1_000);
    expect(await auditCount("api_keys.revoke", c.keyId)).toBe(1);
  });
});
