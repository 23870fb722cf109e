/**
 * One Namespace: its status with the reason and fix, placement and UIDs, the lifecycle
 * timeline (audit events and its Kubernetes namespace's Events, for everyone who may read it),
 * the RoleBindings the operator applies in an existing namespace (YAML and command), retry and
 * delete, and its Configurations, Secrets (names only), ServiceAccounts
 * and Agents. Polled while the worker is still working on it.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import {
  api,
  ApiError,
  type AuditEventView,
  type GrantsView,
  type NamespaceView,
  type TimelineView,
  type WhoAmIView,
} from "../api.js";
import { Copyable, IN_PROGRESS, Link, Refusal, Status, Time, usePolling } from "../ui.js";
import { TenantResources } from "./tenant-resources.js";

function AuditList(props: { events: readonly AuditEventView[] }) {
  return (
    <ol class="timeline" aria-label="Timeline">
      {props.events.map((e) => {
        const d = e.details as Record<string, unknown>;
        const change =
          typeof d.from === "string" && typeof d.to === "string" ? `${d.from} → ${d.to}` : "";
        const repaired = Array.isArray(d.repaired)
          ? `repaired ${d.repaired.map(String).join(", ")}`
          : "";
        const code = typeof d.code === "string" ? d.code : "";
        return (
          <li key={e.id} class={`event outcome-${e.outcome}`}>
            <Time at={e.occurredAt} /> <strong>{e.action}</strong> {e.outcome}
            {change === "" ? null : <span> · {change}</span>}
            {repaired === "" ? null : <span> · {repaired}</span>}
            {code === "" ? null : <span class="mono"> · {code}</span>}
            <span class="muted"> · by {e.actor}</span>
          </li>
        );
      })}
    </ol>
  );
}

function KubernetesEvents(props: { timeline: TimelineView }) {
  const refusal = props.timeline.kubernetesEventsRefusal;
  if (refusal !== null) {
    return (
      <p class="muted">
        Kubernetes Events not read: <strong class="mono">{refusal.code}</strong> {refusal.message}
      </p>
    );
  }
  if (props.timeline.kubernetesEvents.length === 0) {
    return <p class="muted">No Kubernetes Events in its namespace (they expire after an hour).</p>;
  }
  return (
    <ol class="timeline" aria-label="Kubernetes Events">
      {props.timeline.kubernetesEvents.map((e, i) => (
        <li key={`${e.lastAt ?? ""}-${String(i)}`} class={`event k8s-${e.type}`}>
          <Time at={e.lastAt} /> <strong>{e.reason}</strong> {e.type}
          <span class="mono"> · {e.object}</span>
          {e.count > 1 ? <span> · ×{e.count}</span> : null}
          <span> · {e.message}</span>
          {e.source === "" ? null : <span class="muted"> · by {e.source}</span>}
        </li>
      ))}
    </ol>
  );
}

function Timeline(props: { timeline: TimelineView | null; error: unknown }) {
  if (props.timeline === null) return <Refusal error={props.error} />;
  return (
    <>
      <h3>Audit events</h3>
      <AuditList events={props.timeline.audit} />
      <h3>Kubernetes Events</h3>
      <KubernetesEvents timeline={props.timeline} />
    </>
  );
}

function Grants(props: { ns: NamespaceView }) {
  const [grants, setGrants] = useState<GrantsView | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.grants(props.ns.id).then(setGrants, setError);
  }, [props.ns.id]);
  return (
    <section aria-labelledby="grants-heading">
      <h2 id="grants-heading">Grants the operator applies</h2>
      <p>
        In an existing namespace OCC binds nothing itself: the operator applies these RoleBindings
        of the worker and the API in <code>{props.ns.placement.kubernetesNamespace}</code>, with{" "}
        <code>kubectl apply -f grants.yaml</code> or the command below.
      </p>
      <Refusal error={error} label="Grants not read" />
      {grants === null ? null : (
        <>
          <Copyable label="Grant YAML" text={grants.yaml} />
          <Copyable label="Grant command" text={grants.command} />
        </>
      )}
    </section>
  );
}

/** A Namespace just accepted (the create's answer): its page opens on it, progress and all. */
const accepted = new Map<string, NamespaceView>();
export function openAccepted(view: NamespaceView): void {
  accepted.set(view.id, view);
}

export function NamespacePage(props: { id: string; who: WhoAmIView }) {
  const [ns, setNs] = useState<NamespaceView | null>(() => {
    const first = accepted.get(props.id) ?? null;
    accepted.delete(props.id);
    return first;
  });
  const [gone, setGone] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [timeline, setTimeline] = useState<TimelineView | null>(null);
  const [timelineError, setTimelineError] = useState<unknown>(null);
  const [action, setAction] = useState<unknown>(null);
  const [confirming, setConfirming] = useState(false);
  const admin = props.who.installationPermissions.includes("installation:administer");

  const load = useCallback(() => {
    api.namespace(props.id).then(
      (n) => {
        setNs(n);
        setError(null);
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 404) setGone(true);
        setError(err);
      },
    );
    api.timeline(props.id).then((t) => {
      setTimeline(t);
      setTimelineError(null);
    }, setTimelineError);
  }, [props.id]);
  useEffect(load, [load]);
  // Quickly while the worker is on it; slowly otherwise, so repairs and drift still appear.
  usePolling(!gone, ns === null || IN_PROGRESS.has(ns.status) ? 1500 : 5000, load);

  const act = (change: () => Promise<NamespaceView>) => {
    setAction(null);
    change().then((n) => {
      setNs(n);
      setConfirming(false);
      load();
    }, setAction);
  };

  if (ns === null || gone) {
    return (
      <main id="main" tabIndex={-1}>
        <p>
          <Link to="/">← Namespaces</Link>
        </p>
        {gone ? (
          <h1>Namespace deleted</h1>
        ) : error === null ? (
          <p aria-busy="true">Loading…</p>
        ) : (
          <Refusal error={error} />
        )}
      </main>
    );
  }
  const external = ns.placement.mode === "external";
  const k8s = ns.placement.kubernetesNamespace;
  return (
    <main id="main" tabIndex={-1}>
      <p>
        <Link to="/">← Namespaces</Link>
      </p>
      <h1>{ns.name}</h1>
      <p class="mono muted">{ns.id}</p>
      <p role="status" aria-live="polite">
        Status <Status status={ns.status} />
        {IN_PROGRESS.has(ns.status) ? (
          <>
            {" "}
            <progress aria-label={`${ns.status}…`} /> the worker is on it; this page updates itself.
          </>
        ) : null}
      </p>
      {ns.statusReason === null ? null : (
        <div class="reason" role="note" aria-label="Status reason">
          <strong class="mono">{ns.statusReason.code}</strong> since{" "}
          <Time at={ns.statusReason.since} />
          <p>{ns.statusReason.message}</p>
        </div>
      )}
      <dl class="facts">
        <dt>Mode</dt>
        <dd>{ns.placement.mode}</dd>
        <dt>Kubernetes namespace</dt>
        <dd class="mono">{k8s ?? "—"}</dd>
        <dt>Recorded UID</dt>
        <dd class="mono">{ns.placement.uid ?? "—"}</dd>
        <dt>Observed UID</dt>
        <dd class="mono">
          {ns.placement.observedUid ?? "—"}
          {ns.placement.uid !== null &&
          ns.placement.observedUid !== null &&
          ns.placement.uid !== ns.placement.observedUid
            ? " (differs: the namespace was recreated)"
            : ""}
        </dd>
        <dt>Last reconcile</dt>
        <dd>
          <Time at={ns.lastReconciledAt} />
        </dd>
        <dt>Created</dt>
        <dd>
          <Time at={ns.createdAt} />
        </dd>
      </dl>
      <div class="actions">
        {admin && (ns.status === "failed" || ns.status === "degraded") ? (
          <button
            type="button"
            onClick={() => {
              act(() => api.retryNamespace(ns.id));
            }}
          >
            Retry
          </button>
        ) : null}
        {ns.status !== "deleting" ? (
          <button
            type="button"
            class="danger"
            aria-expanded={confirming}
            aria-controls="delete-confirm"
            onClick={() => {
              setConfirming(!confirming);
            }}
          >
            Delete…
          </button>
        ) : null}
      </div>
      {confirming ? (
        <section id="delete-confirm" class="confirm" aria-labelledby="delete-heading">
          <h2 id="delete-heading">Delete {ns.name}?</h2>
          <p>Removed: the tenant, its record (its name is retired), and in Kubernetes:</p>
          <ul>
            {external ? (
              <li>
                only what OCC created in <code>{k8s}</code> (its NetworkPolicies, RoleBindings, its
                tenant labels and annotations)
              </li>
            ) : (
              <li>
                the managed namespace <code>{k8s}</code> with everything in it
              </li>
            )}
          </ul>
          {external ? (
            <p>
              Kept: the namespace <code>{k8s}</code> itself and everything the operator put in it.
            </p>
          ) : null}
          <p>
            The API refuses while the Namespace still holds Configurations, Secrets, ServiceAccounts
            or Agents: delete them first.
          </p>
          <button
            type="button"
            class="danger"
            onClick={() => {
              act(() => api.deleteNamespace(ns.id));
            }}
          >
            Delete {ns.name}
          </button>
        </section>
      ) : null}
      <Refusal error={action} label="Action refused" />
      {external && k8s !== null ? <Grants ns={ns} /> : null}
      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Timeline</h2>
        <Timeline timeline={timeline} error={timelineError} />
      </section>
      {ns.status === "ready" || ns.status === "degraded" ? <TenantResources id={ns.id} /> : null}
    </main>
  );
}
