/**
 * The authorizer's rules (control-plane.md §3), table-driven against PGlite: scope of
 * bindings, Installation-only permissions, restrictions (each column a wildcard when null),
 * deleted principals, and the per-item filter that listings use.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorize,
  authorizedNamespaceIds,
  type AuthorizationRequest,
} from "../../../src/iam/authorizer.js";
import { embeddedDecisions } from "../../../src/iam/embedded-decisions.js";
import { newIamId, type PrincipalId } from "../../../src/domain/iam/ids.js";
import { deletePrincipal } from "../../../src/iam/principals.js";
import { createRestriction } from "../../../src/iam/restrictions.js";
import { ALL_PERMISSIONS, type Permission } from "../../../src/domain/iam/vocabulary.js";
import type { NamespaceId } from "../../../src/domain/placement/ids.js";
import { rowObject } from "../../../src/store/columns.js";
import type { Db } from "../../../src/store/db.js";
import { bind, namespace, principal, role } from "./db.js";
import { openMigratedPglite } from "../../harness/pglite.js";

const p = (kind: Permission["kind"], action: Permission["action"]): Permission => ({
  kind,
  action,
});

let db: Db;
let nsA: NamespaceId;
let nsB: NamespaceId;
let wide: PrincipalId;
let local: PrincipalId;
let restricted: PrincipalId;
let gone: PrincipalId;

beforeAll(async () => {
  db = await openMigratedPglite();
  nsA = await namespace(db, "a");
  nsB = await namespace(db, "b");
  const everything = await role(db, "everything", [...ALL_PERMISSIONS]);
  const reader = await role(db, "reader", [p("namespace", "read"), p("agent", "read")]);
  wide = await principal(db, "wide");
  local = await principal(db, "local");
  restricted = await principal(db, "restricted");
  gone = await principal(db, "gone");
  await bind(db, wide, reader);
  await bind(db, local, everything, nsA);
  await bind(db, restricted, everything);
  await bind(db, gone, everything);
  await deletePrincipal(db, gone);
  for (const r of [
    { principalId: restricted, namespaceId: nsB, action: null, kind: null },
    { principalId: restricted, namespaceId: null, action: "delete", kind: "namespace" },
    { principalId: null, namespaceId: null, action: "deploy", kind: null },
  ] as const) {
    const made = await createRestriction(db, r);
    if (made.outcome !== "created") throw new Error(made.outcome);
  }
});
afterAll(() => db.close());

describe("authorize", () => {
  const cases: [string, () => PrincipalId, () => AuthorizationRequest, boolean | string][] = [
    [
      "Installation-wide read on any Namespace",
      () => wide,
      () => ({ permission: p("namespace", "read"), namespaceId: nsB }),
      true,
    ],
    [
      "Installation-wide binding lacks the action",
      () => wide,
      () => ({ permission: p("namespace", "delete"), namespaceId: nsA }),
      "no_grant",
    ],
    [
      "scoped binding applies in its Namespace",
      () => local,
      () => ({ permission: p("agent", "update"), namespaceId: nsA }),
      true,
    ],
    [
      "scoped binding does not apply elsewhere",
      () => local,
      () => ({ permission: p("agent", "update"), namespaceId: nsB }),
      "no_grant",
    ],
    [
      "scoped binding does not apply to collections",
      () => local,
      () => ({ permission: p("agent", "update") }),
      "no_grant",
    ],
    [
      "namespace:create never from a scoped binding",
      () => local,
      () => ({ permission: p("namespace", "create") }),
      "no_grant",
    ],
    [
      "namespace:create never from a scoped binding, even naming its Namespace",
      () => local,
      () => ({ permission: p("namespace", "create"), namespaceId: nsA }),
      "no_grant",
    ],
    [
      "installation:administer never from a scoped binding",
      () => local,
      () => ({ permission: p("installation", "administer"), namespaceId: nsA }),
      "no_grant",
    ],
    [
      "restriction on one Namespace",
      () => restricted,
      () => ({ permission: p("namespace", "read"), namespaceId: nsB }),
      "restricted",
    ],
    [
      "restriction on one Namespace leaves the others",
      () => restricted,
      () => ({ permission: p("namespace", "read"), namespaceId: nsA }),
      true,
    ],
    [
      "restriction on one Namespace leaves collections",
      () => restricted,
      () => ({ permission: p("namespace", "create") }),
      true,
    ],
    [
      "restriction on an action and kind, everywhere",
      () => restricted,
      () => ({ permission: p("namespace", "delete"), namespaceId: nsA }),
      "restricted",
    ],
    [
      "restriction for everyone on an action",
      () => local,
      () => ({ permission: p("agent", "deploy"), namespaceId: nsA }),
      "restricted",
    ],
    [
      "a deleted principal is denied whatever it was bound to",
      () => gone,
      () => ({ permission: p("namespace", "read"), namespaceId: nsA }),
      "principal_missing",
    ],
  ];
  it.each(cases)("%s", async (_name, who, what, expected) => {
    const decision = await authorize(db, who(), what());
    if (expected === true) {
      expect(decision.allowed).toBe(true);
    } else {
      expect(decision).toMatchObject({ allowed: false, reason: expected });
    }
  });

  it("names the grant as evidence", async () => {
    const decision = await authorize(db, local, {
      permission: p("agent", "read"),
      namespaceId: nsA,
    });
    expect(decision).toMatchObject({ allowed: true, scope: "namespace" });
  });

  it("reads policy on every decision: a new restriction applies at once", async () => {
    const who = await principal(db, "fresh");
    await bind(db, who, await role(db, "fresh-role", [p("secret", "read")]));
    const ask = { permission: p("secret", "read"), namespaceId: nsA };
    expect((await authorize(db, who, ask)).allowed).toBe(true);
    await createRestriction(db, {
      principalId: who,
      namespaceId: null,
      action: null,
      kind: "secret",
    });
    expect(await authorize(db, who, ask)).toMatchObject({ allowed: false, reason: "restricted" });
  });
});

describe("authorizedNamespaceIds", () => {
  it("agrees with authorize on every Namespace, for every principal", async () => {
    for (const who of [wide, local, restricted, gone]) {
      const ids = await authorizedNamespaceIds(db, who, p("namespace", "read"));
      const expected: NamespaceId[] = [];
      for (const ns of [nsA, nsB]) {
        const d = await authorize(db, who, { permission: p("namespace", "read"), namespaceId: ns });
        if (d.allowed) expected.push(ns);
      }
      expect(ids.sort()).toEqual(expected.sort());
    }
  });
});

describe("decisions embedded in another statement", () => {
  /** Every permission, on the collection and on the Namespace the statement names. */
  const embedded = embeddedDecisions({
    principal: "$1::text",
    namespace: "$2::text",
    requests: ALL_PERMISSIONS.flatMap((permission) => [
      { permission, about: "collection" as const },
      { permission, about: "namespace" as const },
    ]),
    as: "d_",
  });
  const decide = async (who: PrincipalId, ns: NamespaceId) => {
    const res = await db.query(`SELECT ${embedded.sql}`, [who, ns]);
    return embedded.read(rowObject(res.rows[0], "decisions"), ns);
  };
  const outcome = (d: { allowed: boolean; reason?: string }) => (d.allowed ? true : d.reason);

  it("agree with authorize on every permission, scope and principal (a principal that never existed too)", async () => {
    let compared = 0;
    for (const who of [wide, local, restricted, gone, newIamId("principal")]) {
      for (const ns of [nsA, nsB]) {
        const known = await decide(who, ns);
        for (const permission of ALL_PERMISSIONS) {
          for (const request of [{ permission }, { permission, namespaceId: ns }]) {
            const inStatement = known(request);
            expect(inStatement, JSON.stringify(request)).toBeDefined();
            expect(outcome(inStatement ?? { allowed: false, reason: "none" })).toBe(
              outcome(await authorize(db, who, request)),
            );
            compared += 1;
          }
        }
      }
    }
    expect(compared).toBe(5 * 2 * ALL_PERMISSIONS.length * 2);
  });

  it("decide nothing for a request they were not made for, or about another Namespace", async () => {
    const only = embeddedDecisions({
      principal: "$1::text",
      namespace: "$2::text",
      requests: [{ permission: p("namespace", "delete"), about: "namespace" }],
      as: "d_",
    });
    const res = await db.query(`SELECT ${only.sql}`, [wide, nsA]);
    const known = only.read(rowObject(res.rows[0], "decisions"), nsA);
    expect(known({ permission: p("namespace", "delete"), namespaceId: nsA })).toEqual({
      allowed: false,
      reason: "no_grant",
    });
    expect(known({ permission: p("namespace", "delete"), namespaceId: nsB })).toBeUndefined();
    expect(known({ permission: p("namespace", "delete") })).toBeUndefined();
    expect(known({ permission: p("namespace", "read"), namespaceId: nsA })).toBeUndefined();
  });

  it("decide nothing where `unless` holds", async () => {
    const skipped = embeddedDecisions({
      principal: "$1::text",
      namespace: "$2::text",
      requests: [{ permission: p("namespace", "read"), about: "collection" }],
      as: "d_",
      unless: "$1::text = 'system'",
    });
    const res = await db.query(`SELECT ${skipped.sql}`, ["system"]);
    expect(
      skipped.read(
        rowObject(res.rows[0], "decisions"),
        nsA,
      )({ permission: p("namespace", "read") }),
    ).toBe(undefined);
  });
});
