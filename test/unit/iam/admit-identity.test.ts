/**
 * Admitting an externally signed-in person (issue 42), on a real (PGlite) database: the
 * principal is found by (issuer, subject) and made with no grants at a first sign-in; a name
 * taken by an unlinked principal or a deleted principal refuses; `groupRoles` adds and removes
 * only the bindings it made, never one an administrator made by hand.
 */
import { describe, expect, it } from "vitest";
import { linkIdentity } from "../../../src/iam/external-identities.js";
import { deletePrincipal } from "../../../src/iam/principals.js";
import {
  admitIdentity,
  type ValidatedIdentity,
} from "../../../src/services/signin/admit-identity.js";
import type { ExternalProviderSettings } from "../../../src/services/signin/external-providers.js";
import { bind, principal, role } from "./db.js";
import { migratedPgliteForFile } from "../../harness/pglite.js";

const db = await migratedPgliteForFile();

const ISSUER = "https://idp.example.com";
const viewer = await role(db, "viewer", [{ action: "read", kind: "namespace" }]);

const settings: ExternalProviderSettings = {
  provider: "oidc",
  issuer: ISSUER,
  displayName: "SSO",
  clientId: "occ",
  clientSecret: "not-used-here",
  allowLists: { allowedEmails: [], allowedDomains: ["example.com"], allowedGroups: [] },
  groupRoles: [
    { group: "viewers", role: "viewer" },
    { group: "ghosts", role: "no-such-role" },
  ],
  insecureLoopbackForTests: false,
};

const person = (subject: string, groups: string[] = []): ValidatedIdentity => ({
  issuer: ISSUER,
  subject,
  claims: { email: `${subject}@example.com`, emailVerified: true, groups, hostedDomain: undefined },
});

async function bindingsOf(principalId: string) {
  const res = await db.query<{ role_id: string; marked: boolean }>(
    `SELECT b.role_id, EXISTS (SELECT 1 FROM group_bindings g WHERE g.binding_id = b.id) AS marked
     FROM bindings b WHERE b.principal_id = $1`,
    [principalId],
  );
  return res.rows;
}

describe("admitIdentity", () => {
  it("makes a user with no grants at the first sign-in and finds it again by (issuer, subject)", async () => {
    const first = await admitIdentity(db, settings, person("ada"), undefined);
    if (!first.admitted) throw new Error(first.reason);
    expect(first.created).toBe(true);
    expect(await bindingsOf(first.principalId)).toEqual([]);
    const again = await admitIdentity(db, settings, person("ada"), undefined);
    expect(again).toMatchObject({ admitted: true, created: false, principalId: first.principalId });
  });

  it("refuses a name taken by an unlinked principal, and a deleted principal", async () => {
    await principal(db, "bob@example.com");
    const taken = await admitIdentity(db, settings, person("bob"), "req_1");
    expect(taken).toMatchObject({ admitted: false, refusal: "name_in_use" });
    const carl = await principal(db, "carl (linked)");
    await linkIdentity(db, { issuer: ISSUER, subject: "carl", principalId: carl, email: null });
    await deletePrincipal(db, carl);
    const gone = await admitIdentity(db, settings, person("carl"), undefined);
    expect(gone).toMatchObject({ admitted: false, refusal: "principal_deleted" });
    const events = await db.query<{ reason: string }>(
      `SELECT details->>'reason' AS reason FROM audit_events
       WHERE action = 'auth.sign_in' AND outcome = 'failure' ORDER BY id`,
    );
    expect(events.rows.map((e) => e.reason).sort()).toEqual(["name_in_use", "principal_deleted"]);
  });

  it("groupRoles adds and removes its own bindings and keeps one made by hand", async () => {
    const dee = await admitIdentity(db, settings, person("dee", ["viewers", "ghosts"]), undefined);
    if (!dee.admitted) throw new Error(dee.reason);
    expect(await bindingsOf(dee.principalId)).toEqual([{ role_id: viewer, marked: true }]);
    await admitIdentity(db, settings, person("dee"), undefined);
    expect(await bindingsOf(dee.principalId)).toEqual([]);

    // Bound by an administrator: the group finds it bound, and leaving the group keeps it.
    const eli = await admitIdentity(db, settings, person("eli"), undefined);
    if (!eli.admitted) throw new Error(eli.reason);
    await bind(db, eli.principalId, viewer);
    await admitIdentity(db, settings, person("eli", ["viewers"]), undefined);
    await admitIdentity(db, settings, person("eli"), undefined);
    expect(await bindingsOf(eli.principalId)).toEqual([{ role_id: viewer, marked: false }]);

    const audit = await db.query<{ details: { unresolved: string[] } }>(
      "SELECT details FROM audit_events WHERE action = 'bindings.group_roles' AND details->>'subject' = 'dee' ORDER BY occurred_at LIMIT 1",
    );
    expect(audit.rows[0]?.details.unresolved).toEqual(["ghosts → no-such-role"]);
  });
});
