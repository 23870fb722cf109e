/**
 * The IAM administration routes and `GET /audit-events` (control-plane.md §2, §3, §6): all
 * need `installation:administer`; every mutation commits with its audit event; keys are shown
 * once, never listed, never logged; revocation and deletion take effect on the next request.
 */
import { describe, expect, it } from "vitest";
import { AuditEventSchema } from "../../../src/contract/audit.js";
import {
  ApiKeySchema,
  BindingSchema,
  IssuedApiKeySchema,
  PrincipalSchema,
  RestrictionSchema,
  RoleSchema,
} from "../../../src/contract/iam.js";
import { NamespaceSchema } from "../../../src/contract/namespaces.js";
import {
  call,
  counts,
  dataOf,
  errorOf,
  pageOf,
  principalWith,
  apiForFile,
} from "../../harness/api-app.js";

const fx = await apiForFile();

describe("access", () => {
  it.each([
    ["GET", "/principals"],
    ["POST", "/principals"],
    ["GET", "/roles"],
    ["POST", "/roles"],
    ["GET", "/bindings"],
    ["POST", "/bindings"],
    ["GET", "/restrictions"],
    ["POST", "/restrictions"],
    ["GET", "/audit-events"],
  ] as const)("%s %s needs installation:administer", async (method, url) => {
    const reader = await principalWith(fx, `no-admin-${method}-${url.slice(1)}`, [
      { action: "read", kind: "namespace" },
      { action: "create", kind: "namespace" },
    ]);
    const body =
      method === "POST"
        ? {
            "/principals": { kind: "user", name: "x" },
            "/roles": { name: "x", permissions: [] },
            "/bindings": { principalId: reader.id, roleId: "role_x" },
            "/restrictions": { kind: "secret" },
          }[url as string]
        : undefined;
    const before = await counts(fx.raw);
    const r = await call(fx.app, method, url, { key: reader.key, body });
    expect(r.status).toBe(403);
    expect(errorOf(r).error.message).toContain("installation:administer");
    expect(await counts(fx.raw)).toEqual({ ...before, denials: before.denials + 1 });
  });
});

describe("names and descriptions follow the character policy", () => {
  it.each([
    [
      "a role's description",
      "/roles",
      (d: string) => ({ name: "r", description: d, permissions: [] }),
    ],
    [
      "a restriction's description",
      "/restrictions",
      (d: string) => ({ kind: "secret", description: d }),
    ],
    [
      "an API key's description",
      "/principals/$admin/api-keys",
      (d: string) => ({ description: d }),
    ],
  ])(
    "%s: bidi, zero-width and blank characters are refused naming field and code point",
    async (_l, url, body) => {
      const path = url.replace("$admin", fx.adminId);
      const before = await counts(fx.raw);
      for (const [text, point] of [
        ["deploy\u202Etxt", "U+202E"],
        ["zero\u200Bwidth", "U+200B"],
        ["filler\u3164", "U+3164"],
        ["braille\u2800", "U+2800"],
      ] as const) {
        const r = await call(fx.app, "POST", path, { key: fx.adminKey, body: body(text) });
        expect(r.status, text).toBe(400);
        const error = errorOf(r).error;
        expect(error.details).toEqual([{ path: "/body/description", code: "invalid_format" }]);
        expect(error.message).toMatch(
          new RegExp(
            `description must not contain .*\\(${point.replace("+", "\\+")} at position \\d+\\); remove it`,
          ),
        );
      }
      expect(await counts(fx.raw)).toEqual(before);
    },
  );

  it("a description may mix scripts and spacing; a role name may not mix look-alike scripts", async () => {
    const ok = await call(fx.app, "POST", "/roles", {
      key: fx.adminKey,
      body: { name: "mixed-ok", description: "Team\u00A0A — команда", permissions: [] },
    });
    expect(dataOf(ok, RoleSchema).description).toBe("Team\u00A0A — команда");
    const r = await call(fx.app, "POST", "/roles", {
      key: fx.adminKey,
      body: { name: "\u0430dmin-role", permissions: [] },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).error.message).toMatch(
      /name must be written in one script, not Cyrillic and Latin together .*\(U\+0064 at position 1\)/,
    );
  });
});

describe("principals and keys", () => {
  it("shows a key once, lists only metadata, never logs it, and revokes it at once", async () => {
    const p = dataOf(
      await call(fx.app, "POST", "/principals", {
        key: fx.adminKey,
        body: { kind: "service", name: "ci-bot" },
      }),
      PrincipalSchema,
    );
    expect(p.kind).toBe("service");
    const issuedReply = await call(fx.app, "POST", `/principals/${p.id}/api-keys`, {
      key: fx.adminKey,
      body: { description: "pipeline", expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(issuedReply.status).toBe(201);
    const issued = dataOf(issuedReply, IssuedApiKeySchema);
    const secret = issued.key.slice(21);

    const listed = await call(fx.app, "GET", `/principals/${p.id}/api-keys`, { key: fx.adminKey });
    expect(pageOf(listed, ApiKeySchema).items.map((k) => k.id)).toEqual([issued.id]);
    expect(listed.text).not.toContain(secret);

    expect((await call(fx.app, "GET", "/namespaces", { key: issued.key })).status).toBe(200);
    const wrong = issued.key.slice(0, -1) + (issued.key.endsWith("A") ? "B" : "A");
    expect((await call(fx.app, "GET", "/namespaces", { key: wrong })).status).toBe(401);

    const revoked = await call(fx.app, "DELETE", `/api-keys/${issued.id}`, { key: fx.adminKey });
    expect(dataOf(revoked, ApiKeySchema).revokedAt).not.toBeNull();
    expect((await call(fx.app, "GET", "/namespaces", { key: issued.key })).status).toBe(401);

    const events = pageOf(
      await call(fx.app, "GET", "/audit-events?resourceKind=api_key", { key: fx.adminKey }),
      AuditEventSchema,
    );
    expect(events.items.map((e) => e.action)).toEqual(
      expect.arrayContaining(["api_keys.create", "api_keys.revoke"]),
    );
    const everything = fx.logs.join("\n");
    expect(everything.length).toBeGreaterThan(0);
    for (const key of [issued.key, wrong, fx.adminKey]) {
      expect(everything).not.toContain(key.slice(21));
    }
    const auditDump = await fx.raw.query<{ t: string }>(
      "SELECT coalesce(string_agg(row_to_json(e)::text, ' '), '') AS t FROM audit_events e",
    );
    expect(auditDump.rows[0]?.t).not.toContain(secret);
  });

  it("refuses an expiry in the past, an unknown principal, a duplicate name, deleting oneself", async () => {
    const p = await principalWith(fx, "dup", []);
    const past = await call(fx.app, "POST", `/principals/${p.id}/api-keys`, {
      key: fx.adminKey,
      body: { expiresAt: "2001-01-01T00:00:00Z" },
    });
    expect(errorOf(past).error.details).toEqual([
      { path: "/body/expiresAt", code: "out_of_range" },
    ]);
    const unknown = await call(fx.app, "POST", "/principals/prn_nobody/api-keys", {
      key: fx.adminKey,
      body: {},
    });
    expect(unknown.status).toBe(404);
    const dup = await call(fx.app, "POST", "/principals", {
      key: fx.adminKey,
      body: { kind: "user", name: "dup" },
    });
    expect(errorOf(dup).error.code).toBe("RESOURCE_CONFLICT");
    const self = await call(fx.app, "DELETE", `/principals/${fx.adminId}`, { key: fx.adminKey });
    expect(errorOf(self).error.code).toBe("RESOURCE_CONFLICT");
  });

  it("deleting a principal ends its access and revokes its keys; its name can be reused", async () => {
    const p = await principalWith(fx, "leaver", [{ action: "read", kind: "namespace" }]);
    expect((await call(fx.app, "GET", "/namespaces", { key: p.key })).status).toBe(200);
    const del = await call(fx.app, "DELETE", `/principals/${p.id}`, { key: fx.adminKey });
    expect(dataOf(del, PrincipalSchema).id).toBe(p.id);
    expect((await call(fx.app, "GET", "/namespaces", { key: p.key })).status).toBe(401);
    expect((await call(fx.app, "GET", `/principals/${p.id}`, { key: fx.adminKey })).status).toBe(
      404,
    );
    const keys = await fx.raw.query(
      "SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE principal_id = $1",
      [p.id],
    );
    expect(keys.rows).toEqual([{ revoked: true }]);
    const again = await call(fx.app, "POST", "/principals", {
      key: fx.adminKey,
      body: { kind: "user", name: "leaver" },
    });
    expect(again.status).toBe(201);
  });
});

describe("roles, bindings and restrictions", () => {
  it("grants through a binding, denies through a restriction, and unbinding takes it away", async () => {
    const p = await principalWith(fx, "grantee", []);
    const role = dataOf(
      await call(fx.app, "POST", "/roles", {
        key: fx.adminKey,
        body: {
          name: "creators",
          permissions: [
            { action: "create", kind: "namespace" },
            { action: "create", kind: "namespace" },
          ],
        },
      }),
      RoleSchema,
    );
    expect(role.permissions).toEqual([{ action: "create", kind: "namespace" }]);
    const make = (name: string) =>
      call(fx.app, "POST", "/namespaces", { key: p.key, body: { name } });
    expect((await make("g1")).status).toBe(403);

    const binding = dataOf(
      await call(fx.app, "POST", "/bindings", {
        key: fx.adminKey,
        body: { principalId: p.id, roleId: role.id },
      }),
      BindingSchema,
    );
    expect(binding.namespaceId).toBeNull();
    expect((await make("g2")).status).toBe(201);
    const dupBinding = await call(fx.app, "POST", "/bindings", {
      key: fx.adminKey,
      body: { principalId: p.id, roleId: role.id },
    });
    expect(errorOf(dupBinding).error.code).toBe("RESOURCE_CONFLICT");
    expect((await call(fx.app, "DELETE", `/roles/${role.id}`, { key: fx.adminKey })).status).toBe(
      409,
    );

    const rst = dataOf(
      await call(fx.app, "POST", "/restrictions", {
        key: fx.adminKey,
        body: { principalId: p.id, action: "create", description: "freeze" },
      }),
      RestrictionSchema,
    );
    expect((await make("g3")).status).toBe(403);
    expect(
      (await call(fx.app, "DELETE", `/restrictions/${rst.id}`, { key: fx.adminKey })).status,
    ).toBe(200);
    expect((await make("g4")).status).toBe(201);

    const filtered = pageOf(
      await call(fx.app, "GET", `/bindings?principalId=${p.id}`, { key: fx.adminKey }),
      BindingSchema,
    );
    expect(filtered.items.map((b) => b.id)).toEqual([binding.id]);
    expect(
      (await call(fx.app, "DELETE", `/bindings/${binding.id}`, { key: fx.adminKey })).status,
    ).toBe(200);
    expect((await make("g5")).status).toBe(403);
    expect((await call(fx.app, "DELETE", `/roles/${role.id}`, { key: fx.adminKey })).status).toBe(
      200,
    );
  });

  it("refuses references to missing things and an unbounded restriction", async () => {
    const p = await principalWith(fx, "refs", []);
    const role = dataOf(
      await call(fx.app, "POST", "/roles", {
        key: fx.adminKey,
        body: { name: "empty", permissions: [] },
      }),
      RoleSchema,
    );
    const noNs = await call(fx.app, "POST", "/bindings", {
      key: fx.adminKey,
      body: { principalId: p.id, roleId: role.id, namespaceId: "ns_missing" },
    });
    expect(errorOf(noNs).error).toMatchObject({ code: "NOT_FOUND", message: "No such namespace." });
    const noRole = await call(fx.app, "POST", "/bindings", {
      key: fx.adminKey,
      body: { principalId: p.id, roleId: "role_missing" },
    });
    expect(errorOf(noRole).error.message).toBe("No such role.");
    const unbounded = await call(fx.app, "POST", "/restrictions", { key: fx.adminKey, body: {} });
    expect(unbounded.status).toBe(400);
    const badKind = await call(fx.app, "POST", "/roles", {
      key: fx.adminKey,
      body: { name: "bad", permissions: [{ action: "fly", kind: "namespace" }] },
    });
    expect(errorOf(badKind).error.details?.[0]?.path).toMatch(/^\/body\/permissions\/0/);
  });

  it("binds in one Namespace: that Namespace only", async () => {
    const ns = dataOf(
      await call(fx.app, "POST", "/namespaces", {
        key: fx.adminKey,
        body: { name: "scoped-bind" },
      }),
      NamespaceSchema,
    );
    const p = await principalWith(fx, "scoped", [{ action: "read", kind: "namespace" }], ns.id);
    const page = pageOf(await call(fx.app, "GET", "/namespaces", { key: p.key }), NamespaceSchema);
    expect(page.items.map((n) => n.id)).toEqual([ns.id]);
  });
});

describe("GET /audit-events", () => {
  it("pages newest first, and every mutation above has its event", async () => {
    const first = pageOf(
      await call(fx.app, "GET", "/audit-events?limit=2", { key: fx.adminKey }),
      AuditEventSchema,
    );
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = pageOf(
      await call(fx.app, "GET", `/audit-events?limit=2&cursor=${first.nextCursor ?? ""}`, {
        key: fx.adminKey,
      }),
      AuditEventSchema,
    );
    const times = [...first.items, ...second.items].map((e) => Date.parse(e.occurredAt));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(new Set([...first.items, ...second.items].map((e) => e.id)).size).toBe(4);

    const mutations = await fx.raw.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_events WHERE kind = 'mutation' AND actor = $1",
      [fx.adminId],
    );
    expect(mutations.rows[0]?.n).toBeGreaterThan(10);
    const bad = await call(fx.app, "GET", "/audit-events?resourceId=x", { key: fx.adminKey });
    expect(errorOf(bad).error.code).toBe("INVALID_REQUEST");
  });
});
