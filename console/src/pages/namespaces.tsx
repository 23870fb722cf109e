/**
 * The Namespaces: one page of the API's keyset listing at a time (never everything), filtered
 * by status on the server; refreshed while any shown Namespace is still being worked on.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, type NamespaceView, type Page, type WhoAmIView } from "../api.js";
import { IN_PROGRESS, Link, Refusal, Status, Time, usePolling } from "../ui.js";

const PAGE_SIZE = 25;
const STATUSES = ["provisioning", "ready", "degraded", "failed", "deleting"] as const;

export function NamespaceList(props: { who: WhoAmIView }) {
  const [status, setStatus] = useState("");
  /** Cursors of the pages before the current one (for "Previous"), and the current one. */
  const [trail, setTrail] = useState<(string | undefined)[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [page, setPage] = useState<Page<NamespaceView> | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(() => {
    api.namespaces({ limit: PAGE_SIZE, cursor, status }).then((p) => {
      setPage(p);
      setError(null);
    }, setError);
  }, [cursor, status]);
  useEffect(load, [load]);
  const busy = page?.items.some((n) => IN_PROGRESS.has(n.status)) ?? false;
  usePolling(busy, 2000, load);

  const canCreate = props.who.installationPermissions.includes("namespace:create");
  return (
    <main id="main" tabIndex={-1}>
      <div class="heading">
        <h1>Namespaces</h1>
        {canCreate ? (
          <Link to="/namespaces/new" class="button primary">
            Create Namespace
          </Link>
        ) : null}
      </div>
      <div class="toolbar">
        <label for="status-filter">Status</label>
        <select
          id="status-filter"
          value={status}
          onChange={(e) => {
            setStatus(e.currentTarget.value);
            setTrail([]);
            setCursor(undefined);
          }}
        >
          <option value="">All</option>
          {STATUSES.map((s) => (
            <option value={s} key={s}>
              {s}
            </option>
          ))}
        </select>
        {busy ? (
          <span role="status" class="progress">
            Updating while provisioning…
          </span>
        ) : null}
      </div>
      <Refusal error={error} />
      {page === null ? (
        error === null ? (
          <p aria-busy="true">Loading…</p>
        ) : null
      ) : page.items.length === 0 ? (
        <p>No Namespaces{status === "" ? "" : ` with status ${status}`}.</p>
      ) : (
        <div class="table-wrap">
          <table class="cards">
            <caption class="visually-hidden">Namespaces you may read</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Mode</th>
                <th scope="col">Kubernetes namespace</th>
                <th scope="col">Reason</th>
                <th scope="col">Last reconcile</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((n) => (
                <tr key={n.id}>
                  <th scope="row">
                    <Link to={`/namespaces/${n.id}`}>{n.name}</Link>
                    <div class="muted mono">{n.id}</div>
                  </th>
                  <td data-label="Status">
                    <Status status={n.status} />
                  </td>
                  <td data-label="Mode">{n.placement.mode}</td>
                  <td data-label="Kubernetes namespace" class="mono">
                    {n.placement.kubernetesNamespace ?? "—"}
                  </td>
                  <td data-label="Reason">
                    {n.statusReason === null ? (
                      "—"
                    ) : (
                      <>
                        <span class="mono">{n.statusReason.code}</span>: {n.statusReason.message}{" "}
                        <span class="muted">
                          since <Time at={n.statusReason.since} />
                        </span>
                      </>
                    )}
                  </td>
                  <td data-label="Last reconcile">
                    <Time at={n.lastReconciledAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav aria-label="Pages" class="pager">
        <button
          type="button"
          disabled={trail.length === 0}
          onClick={() => {
            setCursor(trail[trail.length - 1]);
            setTrail(trail.slice(0, -1));
          }}
        >
          Previous page
        </button>
        <button
          type="button"
          disabled={page?.nextCursor === null || page === null}
          onClick={() => {
            if (page?.nextCursor == null) return;
            setTrail([...trail, cursor]);
            setCursor(page.nextCursor);
          }}
        >
          Next page
        </button>
      </nav>
    </main>
  );
}
