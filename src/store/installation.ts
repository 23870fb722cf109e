/**
 * The Installation singleton (control-plane.md §1): created once, by bootstrap, which runs
 * under one advisory lock so that concurrent bootstraps (two API processes) take turns.
 */
import { branded, defineTable, timestamp, type RowOf } from "./columns.js";
import type { Queryable } from "./db.js";
import { isInstallationId, newIamId } from "../domain/iam/ids.js";

/** The Installation singleton (control-plane.md §1): created once, by bootstrap. */
export const installationTable = defineTable("installation", {
  id: branded(isInstallationId, "an Installation ID"),
  createdAt: timestamp,
});

export type InstallationRecord = RowOf<typeof installationTable.columns>;

const COLUMNS = installationTable.select();

/** The Installation, or `undefined` before bootstrap. */
export async function getInstallation(q: Queryable): Promise<InstallationRecord | undefined> {
  const res = await q.query(`SELECT ${COLUMNS} FROM installation`);
  return installationTable.decodeFirst(res.rows);
}

/**
 * Creates the Installation unless it exists (the singleton key makes a second insert a no-op,
 * whoever races) and returns it, with whether this call created it.
 */
export async function ensureInstallation(
  q: Queryable,
): Promise<{ readonly installation: InstallationRecord; readonly created: boolean }> {
  const res = await q.query(
    `INSERT INTO installation (id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [newIamId("installation")],
  );
  const row = res.rows[0];
  if (row !== undefined) return { installation: installationTable.decode(row), created: true };
  const existing = await getInstallation(q);
  if (existing === undefined) throw new Error("installation: insert conflicted but no row exists");
  return { installation: existing, created: false };
}

/** Serialises bootstraps: held until the caller's transaction ends. */
export async function lockBootstrap(tx: Queryable): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('occ_bootstrap'))");
}
