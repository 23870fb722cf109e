/**
 * The bound Namespace must exist in the database (preprovisioned.md §1: `namespaceId` "names an
 * existing platform Namespace"). A mistyped ID passes every pattern check and verifies against
 * a namespace rendered for it, but no work is ever queued for it: the processes would start and
 * place nothing. So the API and the worker refuse it at startup, naming the ID, the Namespaces
 * that do exist (their IDs and names are not secrets, and with the processes refusing there is
 * no API to list them) and how to fix the binding.
 */
import type { PreprovisionedBinding } from "../../domain/index.js";
import type { Db } from "../../store/db.js";
import { getNamespace, listNamespaces } from "../../store/namespaces.js";
import { StartupRefusedError } from "./startup.js";

/** How many existing Namespaces the refusal lists. */
const LISTED = 10;

/**
 * Refuses a binding whose Namespace ID has no live row in `db`.
 *
 * @throws StartupRefusedError naming the ID, the existing Namespaces and the fix.
 */
export async function requireBoundNamespaceRecord(
  db: Db,
  binding: PreprovisionedBinding,
): Promise<void> {
  const id = binding.namespaceId;
  const record = await getNamespace(db, id, { includeTombstoned: true });
  if (record !== undefined && record.deletedAt === null) return;
  const why =
    record === undefined
      ? "which does not exist in this database (a mistyped ID is never placed)"
      : `which was deleted (${record.name}); a deleted Namespace is never placed again`;
  const page = await listNamespaces(db, { limit: LISTED });
  const shown = page.items.map((n) => `${n.id} (${n.name})`);
  const existing =
    shown.length === 0
      ? "This database has no Namespace: run occ bootstrap (it creates the default Namespace and prints its ID)."
      : `The Namespaces in this database: ${shown.join(", ")}${page.next !== null ? ", …" : ""}.`;
  throw new StartupRefusedError(
    `The preprovisioned binding (OCC_PREPROVISIONED_NAMESPACE, helm value preprovisionedNamespace.namespaceId) names Namespace ${id}, ${why}. ${existing} ` +
      "Set preprovisionedNamespace.namespaceId to the ID of the Namespace to bind (occ bootstrap printed the default Namespace's ID; occ namespaces list shows them through a running API), " +
      "prepare its namespace (occ preprovisioned render --namespace-id <that ID> | kubectl apply -f -, then occ preprovisioned values) and helm upgrade.",
  );
}
