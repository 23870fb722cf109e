/**
 * The R5 backup and restore (issue 40, docs/operations.md "Backup and restore"): a `pg_dump` of
 * the control plane's database taken during a sequence, and a fault that stops every OCC
 * process, restores it and starts them again. What the model then expects is what OCC promises
 * after a restore: the database's writes since the backup are lost, tenants created since are
 * orphans (never deleted, adopted or modified, reported), tenants deleted through OCC since are
 * known again and `degraded` `KUBERNETES_NAMESPACE_MISSING` once their namespace is gone (never
 * recreated), and nothing else the cluster holds is deleted.
 */
import type { AsyncCommand } from "fast-check";
import { ANNOTATIONS, LABELS } from "../../src/domain/index.js";
import type { Backup, Model, Real, Tenant } from "./model.js";

let dumps = 0;

/** Takes the sequence's backup now (a later one replaces it). */
export async function takeBackup(m: Model, r: Real): Promise<Backup> {
  const file = await r.stack.backupDatabase(`r5-${process.pid}-${++dumps}.dump`);
  const backup: Backup = {
    file,
    tenants: m.tenants.map((t) => ({
      id: t.id,
      configurations: [...t.configurations],
      secrets: [...t.secrets],
      agents: t.agents.map((a) => ({ ...a })),
    })),
    mutations: m.mutations.length,
  };
  m.backup = backup;
  return backup;
}

/** The backup step of a sequence, as a command (the regressions place it). */
export class TakeBackup implements AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    await takeBackup(m, r);
  }
  toString = () => "backup()";
}

/** Restores the sequence's backup (taking one first if it has none) and rolls the model back. */
export async function restoreBackup(m: Model, r: Real): Promise<void> {
  const backup = m.backup ?? (await takeBackup(m, r));
  // Read once every OCC process is stopped: from then on only the restored OCC acts.
  await r.stack.restoreDatabase(backup.file, async () => {
    const all = await r.stack.admin.list("Namespace");
    const after: Tenant[] = [];
    for (const t of m.tenants) {
      const ns = all.find((n) => n.metadata.name === t.namespace);
      const gone = ns === undefined || ns.metadata.deletionTimestamp !== undefined;
      const was = backup.tenants.find((b) => b.id === t.id);
      if (was === undefined) {
        after.push(t);
        const uid = ns?.metadata.uid;
        if (gone || uid === undefined) continue;
        const marked =
          ns.metadata.labels?.[LABELS.namespace] === t.id ||
          ns.metadata.annotations?.[ANNOTATIONS.namespaceId] === t.id;
        m.orphans.push({ id: t.id, namespace: t.namespace, uid, metadata: markers(ns), marked });
        continue;
      }
      rollBack(t, was, gone);
    }
    for (const t of after) m.tenants.splice(m.tenants.indexOf(t), 1);
  });
  m.mutations.splice(backup.mutations);
}

/** A tenant the backup knows: the database's side as it was, the cluster's as it is. */
function rollBack(t: Tenant, was: Backup["tenants"][number], gone: boolean): void {
  const changed =
    t.configurations.length !== was.configurations.length ||
    t.secrets.length !== was.secrets.length ||
    JSON.stringify(t.agents) !== JSON.stringify(was.agents);
  t.configurations.splice(0, t.configurations.length, ...was.configurations);
  t.secrets.splice(0, t.secrets.length, ...was.secrets);
  t.agents.splice(0, t.agents.length, ...was.agents.map((a) => ({ ...a })));
  // Objects written since the backup may stay in the namespace: not counted against the rows.
  if (changed) t.tampered = true;
  if (!t.deleted) return;
  // Deleted through OCC since the backup: known again.
  t.deleted = false;
  if (t.mode === "managed" && gone) {
    t.namespaceDeleted = true;
    t.expect = ["degraded:KUBERNETES_NAMESPACE_MISSING"];
  } else {
    // A teardown that had not finished (or an external namespace released since the backup):
    // the restored row meets what is left of it.
    t.expect = ["ready", "degraded", "failed"];
    t.tampered = true;
  }
}

/** A namespace's labels and annotations, comparable. */
export function markers(ns: {
  metadata: {
    labels?: Readonly<Record<string, string>> | undefined;
    annotations?: Readonly<Record<string, string>> | undefined;
  };
}): string {
  const sorted = (o: Readonly<Record<string, string>> = {}) =>
    Object.entries(o).sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([sorted(ns.metadata.labels), sorted(ns.metadata.annotations)]);
}
