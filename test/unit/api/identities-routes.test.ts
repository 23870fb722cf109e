/**
 * External identities of a user principal (issue 42): an administrator links and unlinks an
 * identity (issuer + subject, unique); each change commits with its audit event; a service
 * principal has none; a caller without `installation:administer` is refused.
 */
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { PrincipalSchema } from "../../../src/contract/iam.js";
import { ExternalIdentitySchema } from "../../../src/contract/identities.js";
import { call, counts, dataOf, errorOf, principalWith, apiForFile } from "../../harness/api-app.js";

const fx = await apiForFile();

const ISSUER = "https://idp.example.com";

async function newPrincipal(kind: "user" | "service", name: string): Promise<string> {
  const r = await call(fx.app, "POST", "/principals", { key: fx.adminKey, body: { kind, name } });
  return dataOf(r, PrincipalSchema).id;
}

/** `POST /principals/{id}/identities` with `body`, as `key` (default: the administrator's). */
function link(id: string, body: Record<string, string>, key: string = fx.adminKey) {
  return call(fx.app, "POST", `/principals/${id}/identities`, { key, body });
}

const unlinkUrl = (id: string, issuer: string, subject: string) =>
  `/principals/${id}/identities?issuer=${encodeURIComponent(issuer)}&subject=${encodeURIComponent(subject)}`;

describe("external identities", () => {
  it("links, lists and unlinks, each change audited; the pair is unique", async () => {
    const ada = await newPrincipal("user", "ada");
    const before = await counts(fx.raw);
    const linked = await link(ada, {
      issuer: ISSUER,
      subject: "sub-ada",
      email: "ada@example.com",
    });
    expect(linked.status).toBe(201);
    expect(dataOf(linked, ExternalIdentitySchema)).toMatchObject({
      principalId: ada,
      issuer: ISSUER,
      subject: "sub-ada",
      email: "ada@example.com",
      lastSignInAt: null,
    });
    const listed = await call(fx.app, "GET", `/principals/${ada}/identities`, {
      key: fx.adminKey,
    });
    expect(dataOf(listed, Type.Array(ExternalIdentitySchema)).map((i) => i.subject)).toEqual([
      "sub-ada",
    ]);

    // The same identity cannot be linked to another principal (nor twice to this one).
    const bob = await newPrincipal("user", "bob");
    const again = await link(bob, { issuer: ISSUER, subject: "sub-ada" });
    expect(again.status).toBe(409);
    expect(errorOf(again).error.message).toContain("unlink it");

    // Unlinking from the wrong principal finds nothing; from the right one removes it.
    expect(
      (await call(fx.app, "DELETE", unlinkUrl(bob, ISSUER, "sub-ada"), { key: fx.adminKey }))
        .status,
    ).toBe(404);
    const gone = await call(fx.app, "DELETE", unlinkUrl(ada, ISSUER, "sub-ada"), {
      key: fx.adminKey,
    });
    expect(gone.status).toBe(200);
    const rows = await fx.raw.query("SELECT 1 FROM external_identities WHERE subject = 'sub-ada'");
    expect(rows.rows).toHaveLength(0);
    const events = await fx.raw.query<{ action: string; details: unknown }>(
      `SELECT action, details FROM audit_events WHERE action LIKE 'identities.%'
       AND kind = 'mutation' ORDER BY id`,
    );
    expect(events.rows.map((e) => e.action).sort()).toEqual([
      "identities.link",
      "identities.unlink",
    ]);
    for (const e of events.rows) {
      expect(e.details).toMatchObject({ issuer: ISSUER, subject: "sub-ada" });
    }
    const after = await counts(fx.raw);
    // Two principals created, a link and an unlink (the refused ones left nothing).
    expect(after.mutations).toBe(before.mutations + 3);
  });

  it("refuses an identity for a service principal, a missing principal, a non-issuer", async () => {
    const bot = await newPrincipal("service", "bot");
    const r = await link(bot, { issuer: ISSUER, subject: "sub-bot" });
    expect(r.status).toBe(400);
    expect(errorOf(r).error.message).toContain("kind user");
    const missing = await link("prn_missing", { issuer: ISSUER, subject: "sub-x" });
    expect(missing.status).toBe(404);
    const bad = await link(bot, { issuer: "idp.example.com", subject: "x" });
    expect(bad.status).toBe(400);
  });

  it("needs installation:administer", async () => {
    const reader = await principalWith(fx, "identity-reader", [
      { action: "read", kind: "namespace" },
    ]);
    const r = await link(reader.id, { issuer: ISSUER, subject: "self" }, reader.key);
    expect(r.status).toBe(403);
    const list = await call(fx.app, "GET", `/principals/${reader.id}/identities`, {
      key: reader.key,
    });
    expect(list.status).toBe(403);
  });
});
