/**
 * Expand-then-contract (docs/operations.md, "Upgrade"): during a rolling upgrade the new
 * release's init Job migrates the database while the previous release's pods still serve, and
 * `helm rollback` puts them back on that schema. So the previous release — built from its own
 * tree by tools/previous-release.sh, run from its /app as shipped in its image — must run its
 * core flow on a database this tree migrated: its `occ api` and `occ worker` start, place a
 * managed and an external Namespace, store a Configuration, tear a Namespace down; its own
 * `occ migrate` (re-run by a `helm upgrade` back to its chart) changes nothing. The migrations
 * added since that release are listed and checked for statements that contract the schema.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LABELS } from "../../../src/domain/index.js";
import { REPO_ROOT } from "../../harness/helm.js";
import { eventually } from "../../harness/kube.js";
import { runOcc } from "../../harness/occ.js";
import { buildPreviousRelease, type PreviousRelease } from "../../harness/previous-release.js";
import { readNamespace } from "../compute/fixtures.js";
import { callApi } from "../../harness/api.js";
import { controlPlaneForFile, type ControlPlane } from "../e2e/control-plane.js";
import { tenantsOf } from "../e2e/tenants.js";

let release: PreviousRelease;
let plane: ControlPlane;

beforeAll(async () => {
  // Cold (nothing cached) this builds the release's image; warm it reads the cache.
  release = await buildPreviousRelease();
}, 900_000);

/** The file names of this tree's migrations, sorted. */
function currentMigrations(): string[] {
  return readdirSync(join(REPO_ROOT, "migrations"))
    .filter((f) => f.endsWith(".sql"))
    .sort();
}

/**
 * Statements that contract the schema: what the previous release may still read or write. Such
 * a migration lands one release after the code stopped using the object, and says so in a
 * `-- contract:` comment naming the release since which nothing uses it.
 */
const CONTRACTING = [
  /\bDROP\s+(TABLE|COLUMN|VIEW|TYPE)\b/i,
  /\bRENAME\b/i,
  /\bALTER\s+COLUMN\s+\S+\s+(SET\s+NOT\s+NULL|TYPE|SET\s+DATA\s+TYPE)\b/i,
  /\bTRUNCATE\b/i,
];

describe("expand-then-contract: the previous release on this tree's schema", () => {
  // The API and worker processes are the previous release's; migrate and bootstrap are ours.
  controlPlaneForFile(
    {
      get processEntry() {
        return release.entry;
      },
    },
    (started) => {
      plane = started;
    },
  );

  it("the migrations since the previous release leave its migrations unchanged and only expand", () => {
    const current = currentMigrations();
    const added = current.filter((f) => !release.migrations.includes(f));
    console.log(
      `[upgrade] ${added.length} migration(s) since ${release.ref.slice(0, 12)}: ${added.join(", ") || "none"}`,
    );
    // Append-only: every migration the release shipped is here, byte for byte.
    for (const f of release.migrations) {
      expect(current, `${f} of the previous release is missing here`).toContain(f);
      expect(
        readFileSync(join(REPO_ROOT, "migrations", f), "utf8"),
        `${f} changed since the previous release; add a new migration instead`,
      ).toBe(readFileSync(join(release.app, "migrations", f), "utf8"));
    }
    for (const f of added) {
      const sql = readFileSync(join(REPO_ROOT, "migrations", f), "utf8");
      const code = sql.replace(/--.*$/gm, "");
      const contracting = CONTRACTING.filter((re) => re.test(code)).map((re) => re.source);
      if (contracting.length === 0) continue;
      expect(
        /^--\s*contract:/m.test(sql),
        `${f} contracts the schema (${contracting.join("; ")}) while ${release.ref.slice(0, 12)} ` +
          "may still use it: ship the expand step now and the contract one release later, with " +
          "a `-- contract: unused since <release>` comment",
      ).toBe(true);
    }
  });

  it("its `occ migrate` on the migrated database applies nothing and refuses nothing", () => {
    const res = runOcc(["migrate", "--database-url", plane.databaseUrl], {
      entry: release.entry,
    });
    expect(res.status, `${res.stdout}\n${res.stderr}`).toBe(0);
    expect(res.stdout).toMatch(/\(0 applied, \d+ already applied\)/);
  });

  it("its api and worker place a managed and an external Namespace, store a Configuration and tear one down", async () => {
    const tenants = tenantsOf(plane);
    const managed = await tenants.readyManaged("upgrade-managed");
    const external = await tenants.readyExternal("upgrade-external");
    for (const t of [managed, external]) {
      const ns = await readNamespace(t.namespace);
      expect(ns?.metadata?.labels?.[LABELS.namespace], t.namespace).toBe(t.id);
    }
    const values = { model: "previous-release", tools: ["search"] };
    const created = await callApi(plane, "POST", `/namespaces/${external.id}/configurations`, {
      kind: "agent",
      values,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const cfg = (created.body as { data: { id: string } }).data.id;
    const read = await callApi(plane, "GET", `/namespaces/${external.id}/configurations/${cfg}`);
    expect((read.body as { data: { values: unknown } }).data.values).toEqual(values);

    expect((await callApi(plane, "DELETE", `/namespaces/${managed.id}`)).status).toBe(202);
    await eventually(
      `${managed.id} torn down by the previous release's worker`,
      async () => (await callApi(plane, "GET", `/namespaces/${managed.id}`)).status === 404,
      90_000,
    );
    // Each placement and the teardown settled once, by the previous release's worker (its
    // entry point, not ours).
    const work = await plane.db.query<{ idempotency_key: string; state: string }>(
      "SELECT idempotency_key, state FROM work_items WHERE idempotency_key = ANY($1) ORDER BY 1",
      [
        [
          `namespace:${managed.id}:ready`,
          `namespace:${managed.id}:deleted`,
          `namespace:${external.id}:ready`,
        ],
      ],
    );
    expect(work.rows.map((r) => r.state)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(plane.workers[0]?.child.spawnargs).toContain(release.entry);
  });
});
