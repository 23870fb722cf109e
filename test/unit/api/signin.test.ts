/**
 * Password sign-in and sessions through the app (issue 42), on a migrated PGlite database:
 * identical refusals, recovery-only, rate limits (429 in the envelope), the CSRF Origin rule
 * (API keys unaffected), sign-out, a deleted principal's sessions, idle and absolute expiry,
 * audit events — and no password, token or cookie value in the log or the audit trail.
 */
import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { AuditEventSchema } from "../../../src/contract/audit.js";
import { SessionSchema, WhoAmISchema } from "../../../src/contract/auth.js";
import { PrincipalSchema } from "../../../src/contract/iam.js";
import {
  DEFAULT_SIGN_IN_LIMITS,
  developmentAuthRuntime,
  type AuthRuntime,
} from "../../../src/services/signin/runtime.js";
import { buildApp, type OccApp } from "../../../src/api/app.js";
import {
  call,
  dataOf,
  errorOf,
  pageOf,
  apiForFile,
  type ApiFixture,
  type Reply,
} from "../../harness/api-app.js";
import { PASSWORD_SIGN_IN_AUDITED } from "../../harness/audit.js";

const PASSWORD = "correct horse battery staple";
const BASE = "http://127.0.0.1:8080";

function runtime(over: Partial<AuthRuntime> = {}): AuthRuntime {
  const dev = developmentAuthRuntime();
  return {
    ...dev,
    settings: { ...dev.settings, baseUrl: new URL(BASE) },
    sessionKey: randomBytes(32),
    limits: {
      perAccount: { max: 5, windowMs: 60_000 },
      perAddress: { max: 1000, windowMs: 60_000 },
    },
    ...over,
  };
}

async function user(fx: ApiFixture, name: string, password = PASSWORD): Promise<string> {
  const p = await call(fx.app, "POST", "/principals", {
    key: fx.adminKey,
    body: { kind: "user", name },
  });
  const id = dataOf(p, PrincipalSchema).id;
  const set = await call(fx.app, "PUT", `/principals/${id}/password`, {
    key: fx.adminKey,
    body: { password },
  });
  expect(set.status).toBe(204);
  return id;
}

async function signIn(fx: ApiFixture, name: string, password = PASSWORD, headers = {}) {
  const r = await call(fx.app, "POST", "/auth/password", {
    body: { user: name, password },
    headers: { "x-forwarded-for": "ignored", ...headers },
  });
  return { reply: r, cookie: cookieOf(r) };
}

function cookieOf(r: Reply): string | undefined {
  const set = r.headers["set-cookie"];
  const line = Array.isArray(set) ? set[0] : typeof set === "string" ? set : undefined;
  return line?.split(";")[0];
}

const fx = await apiForFile({ auth: runtime() });

describe("password sign-in", () => {
  it("signs in, sets a HttpOnly SameSite=Lax cookie, and whoami names the session", async () => {
    await user(fx, "alice");
    const { reply, cookie } = await signIn(fx, "alice");
    expect(reply.status).toBe(204);
    const set = String(reply.headers["set-cookie"]);
    expect(set).toMatch(/^occ_session=/);
    expect(set).toContain("HttpOnly");
    expect(set).toContain("SameSite=Lax");
    expect(set).toContain("Path=/");
    const me = await call(fx.app, "GET", "/auth/whoami", { headers: { cookie: cookie ?? "" } });
    const who = dataOf(me, WhoAmISchema);
    expect(who.principal.name).toBe("alice");
    expect(who.credential).toMatchObject({ kind: "session", method: "password" });
    const viaKey = dataOf(
      await call(fx.app, "GET", "/auth/whoami", { key: fx.adminKey }),
      WhoAmISchema,
    );
    expect(viaKey.credential.kind).toBe("api_key");
  });

  it("answers an unknown user, a wrong password and a service principal identically", async () => {
    await user(fx, "bob");
    await call(fx.app, "POST", "/principals", {
      key: fx.adminKey,
      body: { kind: "service", name: "svc" },
    });
    const answers = [];
    for (const [name, password] of [
      ["bob", "wrong password!!"],
      ["nobody-at-all", PASSWORD],
      ["svc", PASSWORD],
    ] as const) {
      const { reply, cookie } = await signIn(fx, name, password);
      expect(reply.status).toBe(401);
      expect(cookie).toBeUndefined();
      answers.push(errorOf(reply).error);
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it("takes as long for an unknown user as for a wrong password (one argon2id verification each)", async () => {
    await user(fx, "timing");
    const time = async (name: string) => {
      const t0 = performance.now();
      expect((await signIn(fx, name, "not the password")).reply.status).toBe(401);
      return performance.now() - t0;
    };
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      wrong.push(await time("timing"));
      unknown.push(await time(`nobody-${i}`));
    }
    // Without the dummy hash an unknown user would answer in a fraction of the time.
    expect(median(unknown)).toBeGreaterThan(median(wrong) * 0.5);
    expect(median(unknown)).toBeLessThan(median(wrong) * 2);
  });

  it("rate-limits per account: the attempt beyond the limit is 429 in the envelope", async () => {
    await user(fx, "carol");
    for (let i = 0; i < 5; i += 1) {
      expect((await signIn(fx, "carol", "not the password")).reply.status).toBe(401);
    }
    const sixth = await signIn(fx, "Carol", PASSWORD);
    expect(sixth.reply.status).toBe(429);
    expect(errorOf(sixth.reply).error.code).toBe("TOO_MANY_REQUESTS");
    // Another account is not limited by carol's attempts.
    await user(fx, "dave");
    expect((await signIn(fx, "dave")).reply.status).toBe(204);
  });

  it("rate-limits per client address, whatever the account", async () => {
    const app = await buildApp({
      db: fx.raw,
      controllerNamespace: "occ-system",
      auth: runtime({
        limits: {
          perAccount: { max: 100, windowMs: 60_000 },
          perAddress: { max: 2, windowMs: 60_000 },
        },
      }),
    });
    try {
      const attempt = (user: string, remoteAddress: string) =>
        app.inject({
          method: "POST",
          url: "/auth/password",
          remoteAddress,
          payload: { user, password: "whatever it is" },
        });
      expect((await attempt("u1", "10.0.0.1")).statusCode).toBe(401);
      expect((await attempt("u2", "10.0.0.1")).statusCode).toBe(401);
      const third = await attempt("u3", "10.0.0.1");
      expect(third.statusCode).toBe(429);
      expect((JSON.parse(third.body) as { error: { code: string } }).error.code).toBe(
        "TOO_MANY_REQUESTS",
      );
      expect((await attempt("u3", "10.0.0.2")).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it("refuses a sign-in form posted from a foreign origin (login CSRF)", async () => {
    await user(fx, "erin");
    const r = await signIn(fx, "erin", PASSWORD, { origin: "https://evil.example" });
    expect(r.reply.status).toBe(403);
  });
});

describe("CSRF and API keys", () => {
  it("refuses an administrator's cookie-authenticated POST without or with a foreign Origin; the API key works", async () => {
    await call(fx.app, "PUT", `/principals/${fx.adminId}/password`, {
      key: fx.adminKey,
      body: { password: PASSWORD },
    });
    const { cookie } = await signIn(fx, "admin");
    const body = (name: string) => ({ kind: "user", name });
    for (const headers of [
      { cookie: cookie ?? "" },
      { cookie: cookie ?? "", origin: "https://evil.example" },
      { cookie: cookie ?? "", origin: BASE, "sec-fetch-site": "cross-site" },
    ]) {
      const r = await call(fx.app, "POST", "/principals", { body: body("csrf"), headers });
      expect(r.status).toBe(403);
      expect(errorOf(r).error.message).toMatch(/Origin|Cross-site/);
    }
    const same = await call(fx.app, "POST", "/principals", {
      body: body("made-by-admin-session"),
      headers: { cookie: cookie ?? "", origin: BASE },
    });
    expect(same.status).toBe(201);
    const key = await call(fx.app, "POST", "/principals", {
      key: fx.adminKey,
      body: body("by-key"),
    });
    expect(key.status).toBe(201);
  });

  it("a session without the permission is still refused by the authorizer", async () => {
    await user(fx, "frank");
    const { cookie } = await signIn(fx, "frank");
    const r = await call(fx.app, "POST", "/principals", {
      body: { kind: "user", name: "made-by-frank" },
      headers: { cookie: cookie ?? "", origin: BASE },
    });
    expect(r.status).toBe(403);
    expect(errorOf(r).error.message).toContain("installation:administer");
  });
});

describe("ending sessions", () => {
  it("signs out: the cookie is refused afterwards", async () => {
    await user(fx, "gina");
    const { cookie } = await signIn(fx, "gina");
    const headers = { cookie: cookie ?? "", origin: BASE };
    expect((await call(fx.app, "POST", "/auth/logout", { headers })).status).toBe(204);
    expect((await call(fx.app, "GET", "/auth/whoami", { headers })).status).toBe(401);
  });

  it("an administrator lists and revokes a session; deleting a principal ends its sessions", async () => {
    const id = await user(fx, "hank");
    const first = await signIn(fx, "hank");
    const second = await signIn(fx, "hank");
    const list = pageOf(
      await call(fx.app, "GET", `/principals/${id}/sessions`, { key: fx.adminKey }),
      SessionSchema,
    );
    expect(list.items).toHaveLength(2);
    const revoke = await call(fx.app, "DELETE", `/sessions/${list.items[0]?.id ?? ""}`, {
      key: fx.adminKey,
    });
    expect(revoke.status).toBe(200);
    const h1 = { cookie: first.cookie ?? "" };
    const h2 = { cookie: second.cookie ?? "" };
    expect((await call(fx.app, "GET", "/auth/whoami", { headers: h1 })).status).toBe(401);
    expect((await call(fx.app, "GET", "/auth/whoami", { headers: h2 })).status).toBe(200);
    await call(fx.app, "DELETE", `/principals/${id}`, { key: fx.adminKey });
    expect((await call(fx.app, "GET", "/auth/whoami", { headers: h2 })).status).toBe(401);
  });

  it("a forged cookie (bad signature) is refused", async () => {
    const r = await call(fx.app, "GET", "/auth/whoami", {
      headers: { cookie: `occ_session=occs_${"A".repeat(43)}.forged` },
    });
    expect(r.status).toBe(401);
  });
});

describe("expiry", () => {
  it("ends a session after its idle timeout and at its absolute expiry", async () => {
    // Two more apps on the same database, with short lifetimes.
    const appWith = (idleSeconds: number, absoluteSeconds: number) =>
      buildApp({
        db: fx.raw,
        controllerNamespace: "occ-system",
        auth: runtime({
          lifetimes: { idleSeconds, absoluteSeconds },
          limits: DEFAULT_SIGN_IN_LIMITS,
        }),
      });
    const idle = await appWith(1, 60);
    const absolute = await appWith(60, 2);
    try {
      await user(fx, "ivy");
      await user(fx, "jack");
      const signInTo = (app: OccApp, name: string) =>
        call(app, "POST", "/auth/password", { body: { user: name, password: PASSWORD } });
      const ha = { cookie: cookieOf(await signInTo(idle, "ivy")) ?? "" };
      const hb = { cookie: cookieOf(await signInTo(absolute, "jack")) ?? "" };
      expect((await call(idle, "GET", "/auth/whoami", { headers: ha })).status).toBe(200);
      // Used every 0.3 s, the absolute one still ends at 2 s.
      for (let t = 0; t < 5; t += 1) {
        expect((await call(absolute, "GET", "/auth/whoami", { headers: hb })).status).toBe(200);
        await new Promise((r) => setTimeout(r, 300));
      }
      await new Promise((r) => setTimeout(r, 1_000));
      expect((await call(idle, "GET", "/auth/whoami", { headers: ha })).status).toBe(401);
      expect((await call(absolute, "GET", "/auth/whoami", { headers: hb })).status).toBe(401);
    } finally {
      await idle.close();
      await absolute.close();
    }
  });

  it("keeps a session in use past its idle timeout", async () => {
    const app = await buildApp({
      db: fx.raw,
      controllerNamespace: "occ-system",
      auth: runtime({ lifetimes: { idleSeconds: 1, absoluteSeconds: 60 } }),
    });
    try {
      await user(fx, "kim");
      const r = await call(app, "POST", "/auth/password", {
        body: { user: "kim", password: PASSWORD },
      });
      const headers = { cookie: cookieOf(r) ?? "" };
      for (let t = 0; t < 8; t += 1) {
        expect((await call(app, "GET", "/auth/whoami", { headers })).status).toBe(200);
        await new Promise((done) => setTimeout(done, 300));
      }
    } finally {
      await app.close();
    }
  });
});

describe("audit and logs", () => {
  it("records sign-in, failure, sign-out and revoke, and no secret reaches the log or the audit", async () => {
    const events = await call(fx.app, "GET", "/audit-events?limit=1000", { key: fx.adminKey });
    const all = pageOf(events, AuditEventSchema).items;
    const actions = all.map((e) => `${e.action}:${e.outcome}`);
    for (const a of PASSWORD_SIGN_IN_AUDITED) expect(actions).toContain(a);
    const failure = all.find((e) => e.action === "auth.sign_in" && e.outcome === "failure");
    expect(failure?.details).toMatchObject({ method: "password" });
    const rows = await fx.raw.query<{ t: string }>("SELECT token_sha256 AS t FROM sessions");
    const text = JSON.stringify(all) + fx.logs.join("\n");
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain("wrong password!!");
    expect(text).not.toContain("occs_");
    for (const row of rows.rows) expect(text).not.toContain(row.t);
  });
});
