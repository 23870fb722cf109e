/**
 * Sign-in through the real processes (issue 42): two `occ api` processes on one PostgreSQL
 * sharing a session key — A with password sign-in for everyone, B `recovery-only` — and the
 * real CLI. Password sign-in end to end, identical refusals, recovery-only, a revocation through
 * A refused by B within 1 s, a deleted principal's session, rate limiting (429 in the envelope),
 * the CSRF Origin rule beside an unaffected API key, `occ login`/`whoami`/`logout`, the audit
 * trail — and no password or session value in any process log or audit event.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { openPostgres } from "../../../src/store/pg-db.js";
import type { Db } from "../../../src/store/db.js";
import { createTestDatabase } from "../../harness/db.js";
import { undoAfterAll } from "../../harness/undo.js";
import { documentedBlock, operatorFolder, runBlock, shown } from "../../harness/doc-blocks.js";
import { spawnSync } from "node:child_process";
import { OCC_ENTRY, occ, runOcc, startOcc, type OccProcess } from "../../harness/occ.js";
import { requestApi, type ApiRequest } from "../../harness/api.js";
import { PASSWORD_SIGN_IN_AUDITED } from "../../harness/audit.js";

const PASSWORD = "alice's long password 1";
const ADMIN_PASSWORD = "the recovery password 42";
let dir: string;
let db: Db;
let adminKey: string;
let adminId: string;
let a: OccProcess & { match: RegExpMatchArray };
let b: OccProcess & { match: RegExpMatchArray };
const A = () => a.match[1] ?? "";
const B = () => b.match[1] ?? "";
/** Every session value a test saw, to look for in the logs at the end. */
const seen: string[] = [];
const undo = undoAfterAll();
let databaseUrl = "";
let configOfA = "";
let start: (config: string) => Promise<OccProcess & { match: RegExpMatchArray }>;
/** Output of API processes restarted by a test. */
const earlierOutput: string[] = [];

/** The operator's folder (`occ` on PATH) and options to run a documented block as written. */
async function operator(env: Record<string, string>, fill: Record<string, string>) {
  const home = join(dir, `op-${Math.random().toString(36).slice(2)}`);
  await mkdir(home);
  const folder = await operatorFolder(home);
  return { cwd: folder.work, env: { PATH: folder.path, ...env }, fill };
}

interface Answer {
  status: number;
  body: { data?: Record<string, unknown>; error?: { code: string; message: string } };
  cookie: string | undefined;
}

async function call(
  base: string,
  method: string,
  path: string,
  opts: ApiRequest = {},
): Promise<Answer> {
  const res = await requestApi(base, method, path, opts);
  if (res.cookie !== undefined) {
    seen.push(decodeURIComponent(res.cookie.slice("occ_session=".length)));
  }
  return { status: res.status, body: res.body as Answer["body"], cookie: res.cookie };
}

const signIn = (base: string, user: string, password: string) =>
  call(base, "POST", "/auth/password", { body: { user, password } });

/** A user with {@link PASSWORD}: set through the real CLI (`occ principals set-password`) or the API. */
async function userWithPassword(name: string, viaCli = false): Promise<string> {
  const p = await call(A(), "POST", "/principals", { key: adminKey, body: { kind: "user", name } });
  expect(p.status).toBe(201);
  const id = String(p.body.data?.id);
  const file = join(dir, `${name}-password`);
  await writeFile(file, `${PASSWORD}\n`, { mode: 0o600 });
  if (viaCli) {
    occ(["principals", "set-password", id, "--password-file", file, "--server", A()], {
      env: { OCC_API_KEY: adminKey },
    });
  } else {
    const set = await call(A(), "PUT", `/principals/${id}/password`, {
      key: adminKey,
      body: { password: PASSWORD },
    });
    expect(set.status).toBe(204);
  }
  return id;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-signin-"));
  undo(() => rm(dir, { recursive: true, force: true }));
  const database = await createTestDatabase();
  undo(() => database.drop());
  db = openPostgres(database.url, { max: 2 });
  undo(() => db.close());
  const kubeconfig = inject("env").kubeconfigs["occ-worker"];
  await writeFile(join(dir, "session-key"), randomBytes(48).toString("base64"), { mode: 0o600 });
  await writeFile(join(dir, "admin-password"), `${ADMIN_PASSWORD}\n`, { mode: 0o600 });
  for (const f of ["client-id", "client-secret"]) await writeFile(join(dir, f), "x");
  const configA = join(dir, "a.yaml");
  await writeFile(
    configA,
    `kubernetes:\n  kubeconfig: ${kubeconfig}\nauth:\n  sessionKeyFile: ${join(dir, "session-key")}\n`,
  );
  occ(["migrate", "--database-url", database.url]);
  const boot = runOcc([
    "bootstrap",
    ...["--database-url", database.url, "--config", configA],
    ...["--api-key-file", join(dir, "key"), "--admin-password-file", join(dir, "admin-password")],
  ]);
  expect(boot.status).toBe(0);
  adminId = /administrator password set \((prn_[^)]+)\)/.exec(boot.stderr)?.[1] ?? "";
  expect(adminId).toMatch(/^prn_/);
  adminKey = (await readFile(join(dir, "key"), "utf8")).trim();
  const configB = join(dir, "b.yaml");
  await writeFile(
    configB,
    [
      `kubernetes:\n  kubeconfig: ${kubeconfig}`,
      "auth:",
      `  sessionKeyFile: ${join(dir, "session-key")}`,
      "  baseUrl: https://occ.example.test",
      `  recoveryUserId: ${adminId}`,
      "  passwordSignIn: recovery-only",
      "  oidc:",
      "    issuer: https://idp.example.test",
      `    clientIdFile: ${join(dir, "client-id")}`,
      `    clientSecretFile: ${join(dir, "client-secret")}`,
      "",
    ].join("\n"),
  );
  databaseUrl = database.url;
  configOfA = configA;
  start = (config: string) =>
    startOcc(
      ["api", "--database-url", database.url, "--config", config, "--port", "0"],
      /listening on (http:\/\/\S+)/,
      { env: { OCC_SIGN_IN_ATTEMPTS_PER_ACCOUNT: "5", OCC_API_KEY: undefined } },
    );
  a = await start(configA);
  undo(() => a.stop());
  b = await start(configB);
  undo(() => b.stop());
}, 120_000);

describe("password sign-in through occ api", () => {
  it("signs in; a wrong password and an unknown user get the identical answer", async () => {
    await userWithPassword("alice", true);
    const ok = await signIn(A(), "alice", PASSWORD);
    expect(ok.status).toBe(204);
    const me = await call(A(), "GET", "/auth/whoami", { cookie: ok.cookie ?? "" });
    expect(me.body.data?.principal).toMatchObject({ name: "alice", kind: "user" });
    const wrong = await signIn(A(), "alice", "not alice's password");
    const unknown = await signIn(A(), "nobody", PASSWORD);
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(wrong.body.error).toEqual(unknown.body.error);
    expect([wrong.cookie, unknown.cookie]).toEqual([undefined, undefined]);
  });

  it("recovery-only (B) refuses a non-recovery user like an unknown one, and admits the recovery account", async () => {
    const alice = await signIn(B(), "alice", PASSWORD);
    const unknown = await signIn(B(), "nobody", PASSWORD);
    expect(alice.status).toBe(401);
    expect(alice.body.error).toEqual(unknown.body.error);
    const admin = await signIn(B(), "admin", ADMIN_PASSWORD);
    expect(admin.status).toBe(204);
    expect(admin.body.error).toBeUndefined();
    const providers = await call(B(), "GET", "/auth/providers");
    expect(providers.body.data).toMatchObject({ password: "recovery-only", google: false });
  });

  it("the attempt beyond the per-account limit is 429 in the error envelope", async () => {
    await userWithPassword("limited");
    for (let i = 0; i < 5; i++) expect((await signIn(A(), "limited", "guess")).status).toBe(401);
    const over = await signIn(A(), "limited", PASSWORD);
    expect(over.status).toBe(429);
    expect(over.body.error?.code).toBe("TOO_MANY_REQUESTS");
  });
});

describe("sessions across two API processes", () => {
  it("a session revoked through A is refused by B within 1 s", async () => {
    const id = await userWithPassword("revoked");
    const s = await signIn(A(), "revoked", PASSWORD);
    const cookie = s.cookie ?? "";
    for (let i = 0; i < 3; i++) {
      expect((await call(B(), "GET", "/auth/whoami", { cookie })).status).toBe(200);
    }
    const list = await call(A(), "GET", `/principals/${id}/sessions`, { key: adminKey });
    const sessionId = String((list.body.data as unknown as { id: string }[])[0]?.id);
    expect((await call(A(), "DELETE", `/sessions/${sessionId}`, { key: adminKey })).status).toBe(
      200,
    );
    const start = performance.now();
    let last = 200;
    while (performance.now() - start <= 1_000 && last === 200) {
      last = (await call(B(), "GET", "/auth/whoami", { cookie })).status;
      if (last === 200) await new Promise((r) => setTimeout(r, 10));
    }
    expect(last).toBe(401);
    expect(performance.now() - start).toBeLessThanOrEqual(1_000);
  });

  it("a principal deleted through A: its session is refused by B", async () => {
    const id = await userWithPassword("deleted");
    const cookie = (await signIn(A(), "deleted", PASSWORD)).cookie ?? "";
    expect((await call(B(), "GET", "/auth/whoami", { cookie })).status).toBe(200);
    expect((await call(A(), "DELETE", `/principals/${id}`, { key: adminKey })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await call(B(), "GET", "/auth/whoami", { cookie })).status).toBe(401);
    const rows = await db.query(
      "SELECT 1 FROM sessions WHERE principal_id = $1 AND revoked_at IS NULL",
      [id],
    );
    expect(rows.rows).toHaveLength(0);
  });

  it("refuses a cookie-authenticated POST without or with a foreign Origin (403); the API key still works", async () => {
    await call(A(), "PUT", `/principals/${adminId}/password`, {
      key: adminKey,
      body: { password: ADMIN_PASSWORD },
    });
    const cookie = (await signIn(A(), "admin", ADMIN_PASSWORD)).cookie ?? "";
    const body = { kind: "service", name: "csrf-target" };
    const none = await call(A(), "POST", "/principals", { cookie, body });
    const foreign = await call(A(), "POST", "/principals", {
      cookie,
      body,
      origin: "https://evil.example",
    });
    expect([none.status, foreign.status]).toEqual([403, 403]);
    expect(none.body.error?.code).toBe("FORBIDDEN");
    const same = await call(A(), "POST", "/principals", { cookie, body, origin: A() });
    expect(same.status).toBe(201);
    const key = await call(A(), "POST", "/principals", {
      key: adminKey,
      body: { kind: "service", name: "csrf-target-2" },
    });
    expect(key.status).toBe(201);
  });
});

describe("the CLI", () => {
  it("occ login stores a 0600 session, occ whoami uses it, an explicit key wins, occ logout ends it", async () => {
    const xdg = join(dir, "xdg");
    const env = { XDG_CONFIG_HOME: xdg, OCC_API_KEY: undefined, OCC_API_URL: A() };
    await userWithPassword("carol");
    const pw = join(dir, "carol-password");
    const login = runOcc(["login", "--user", "carol", "--password-file", pw], { env });
    expect(login.status).toBe(0);
    const file = join(xdg, "occ", "sessions.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, "utf8")) as {
      sessions: Record<string, { session: string }>;
    };
    seen.push(stored.sessions[A()]?.session ?? "missing");
    expect(occ(["whoami"], { env })).toMatch(/^carol \(user prn_\S+\) by password session ses_/);
    expect(occ(["whoami"], { env: { ...env, OCC_API_KEY: adminKey } })).toMatch(
      /^admin .* by API key key_/,
    );
    expect(occ(["logout"], { env })).toContain("signed out");
    const after = runOcc(["whoami"], { env });
    expect(after.status).not.toBe(0);
    expect(after.stderr).toContain("not signed in");
    const ended = await db.query(
      "SELECT 1 FROM sessions s JOIN principals p ON p.id = s.principal_id WHERE p.name = 'carol' AND s.revoked_at IS NOT NULL",
    );
    expect(ended.rows.length).toBeGreaterThanOrEqual(1);
    // From standard input (`--password-file -`) too; never from an argument.
    const viaStdin = spawnSync(
      process.execPath,
      [OCC_ENTRY, "login", "--user", "carol", "--password-file", "-"],
      {
        input: `${PASSWORD}\n`,
        encoding: "utf8",
        env: { ...process.env, XDG_CONFIG_HOME: xdg, OCC_API_URL: A(), OCC_API_KEY: "" },
      },
    );
    expect(viaStdin.stderr).toBe("");
    expect(viaStdin.status).toBe(0);
    expect(occ(["logout"], { env })).toContain("signed out");
  });
});

describe("docs/operations.md, as written", () => {
  it("the recovery account: bootstrap sets its password from a file, occ login and whoami", async () => {
    const o = await operator(
      { DATABASE_URL: databaseUrl, XDG_CONFIG_HOME: join(dir, "xdg-recovery"), OCC_API_KEY: "" },
      { "https://occ.example.com": A(), "./recovery-password": join(dir, "admin-password") },
    );
    const results = runBlock(documentedBlock("recovery-password"), o);
    for (const r of results) expect(r.code, shown(r)).toBe(0);
    expect(results[0]?.stderr).toContain(`administrator password set (${adminId})`);
    expect(results[2]?.stdout).toMatch(/^admin \(user prn_\S+\) by password session ses_/);
  });

  it("revoking sessions: list, revoke one, a password reset ends the rest", async () => {
    const id = await userWithPassword("dora");
    const first = (await signIn(A(), "dora", PASSWORD)).cookie ?? "";
    const second = (await signIn(A(), "dora", PASSWORD)).cookie ?? "";
    const list = await call(A(), "GET", `/principals/${id}/sessions`, { key: adminKey });
    const ids = (list.body.data as unknown as { id: string }[]).map((x) => x.id);
    await writeFile(join(dir, "new-password"), "a brand new password 7\n");
    const o = await operator(
      { OCC_API_KEY: adminKey, OCC_API_URL: A() },
      { "prn_…": id, "ses_…": ids[0] ?? "", "./new-password": join(dir, "new-password") },
    );
    const [listed, revoked, reset] = runBlock(documentedBlock("revoke-sessions"), o);
    for (const r of [listed, revoked, reset])
      expect(r?.code, r === undefined ? "" : shown(r)).toBe(0);
    expect(listed?.stdout).toContain(ids[0]);
    expect(listed?.stdout).toContain(ids[1]);
    const statuses = [];
    for (const cookie of [first, second]) {
      statuses.push((await call(A(), "GET", "/auth/whoami", { cookie })).status);
    }
    expect(statuses).toEqual([401, 401]);
    expect((await signIn(A(), "dora", "a brand new password 7")).status).toBe(204);
  });
});

describe("audit and logs", () => {
  it("records sign-in, failure, sign-out and revoke; no password or session value is logged or audited", async () => {
    const events = await db.query<{ action: string; outcome: string; details: unknown }>(
      "SELECT action, outcome, details FROM audit_events WHERE action LIKE 'auth.%' OR action LIKE 'sessions.%' OR action = 'principals.set_password'",
    );
    const seenActions = new Set(events.rows.map((e) => `${e.action}:${e.outcome}`));
    for (const a of PASSWORD_SIGN_IN_AUDITED) expect(seenActions).toContain(a);
    const audit = JSON.stringify(await db.query("SELECT * FROM audit_events").then((r) => r.rows));
    const logs = [...earlierOutput, ...a.output, ...b.output].join("\n");
    expect(logs.length).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(5);
    for (const secret of [PASSWORD, ADMIN_PASSWORD, "not alice's password", ...seen]) {
      expect(logs).not.toContain(secret);
      expect(audit).not.toContain(secret);
      const token = secret.split(".")[0] ?? secret;
      expect(logs).not.toContain(token);
    }
  });
});

describe("rotating the session key (docs/operations.md, as written)", () => {
  it("after a new key and a restart, sessions signed with the old key are refused", async () => {
    const old = (await signIn(A(), "dora", "a brand new password 7")).cookie ?? "";
    expect((await call(A(), "GET", "/auth/whoami", { cookie: old })).status).toBe(200);
    const before = await readFile(join(dir, "session-key"), "utf8");
    const o = await operator({}, { "/etc/occ/auth/session/": `${dir}/` });
    for (const r of runBlock(documentedBlock("rotate-session-key"), o))
      expect(r.code, shown(r)).toBe(0);
    const after = await readFile(join(dir, "session-key"), "utf8");
    expect(after).not.toBe(before);
    expect(Buffer.from(after.trim()).length).toBeGreaterThanOrEqual(32);
    earlierOutput.push(...a.output);
    await a.stop();
    a = await start(configOfA);
    expect((await call(A(), "GET", "/auth/whoami", { cookie: old })).status).toBe(401);
    const fresh = (await signIn(A(), "dora", "a brand new password 7")).cookie ?? "";
    expect((await call(A(), "GET", "/auth/whoami", { cookie: fresh })).status).toBe(200);
  });
});
