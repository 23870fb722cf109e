import { LABELS } from "../../../domain/placement/markers.js";
import type { Kind, KubeAccess, RequestCounter, RequestLimiter } from "../client/index.js";
import { KubeTransport } from "../client/transport.js";
import type { ObjectVersion } from "./own-writes.js";
import { Reflector, type ChangeSource, type WatchRestartReason } from "./reflector.js";
import { Interner } from "./projection.js";
import type { StoreChange } from "./store.js";

/**
 * The kinds the worker watches and the label selector of each. Namespaces, quotas and limit
 * ranges OCC cares about all carry the tenant label, so those watches are label-selected. A
 * NetworkPolicy an operator adds to a tenant namespace carries no OCC marker, yet it is exactly
 * the drift that must be seen (a foreign allow-all policy), and so is a RoleBinding the
 * operator grants: both are watched cluster-wide without a selector. Cluster-wide rather than
 * per namespace because one stream per kind costs the API server the same whatever the number
 * of tenants, while 2,000 per-namespace streams would not.
 */
export const WATCHED_KINDS: readonly { readonly kind: Kind; readonly labelSelector?: string }[] = [
  { kind: "Namespace", labelSelector: LABELS.namespace },
  { kind: "ResourceQuota", labelSelector: LABELS.namespace },
  { kind: "LimitRange", labelSelector: LABELS.namespace },
  { kind: "NetworkPolicy" },
  { kind: "RoleBinding" },
];

/**
 * A change that may concern a tenant: the Kubernetes namespace it happened in and, when the
 * objects themselves say so, the tenant (the `openclaw.dev/namespace` label of the namespace
 * or of the object). Without a hint the caller maps the namespace name to a tenant through
 * the database (an external namespace is not labelled before it is bound).
 */
export interface TenantTouch {
  readonly namespace: string;
  readonly tenant: string | null;
  /**
   * The object at the version a watch event carried, so the caller can recognise the echo of
   * its own write (`own-writes.ts`); `null` for a delete and for a difference a relist found.
   */
  readonly version: ObjectVersion | null;
}

export interface WatchSetOptions {
  readonly kubeconfig: KubeAccess;
  readonly counter: RequestCounter;
  readonly timeoutMs?: number;
  /** The process's request budget (the caches' LISTs take from it; the watches do not). */
  readonly limiter?: RequestLimiter;
  readonly onTouch: (touch: TenantTouch) => void;
  readonly onRestart?: (kind: Kind, reason: WatchRestartReason, err?: unknown) => void;
  readonly watchSeconds?: number;
  readonly maxBackoffMs?: number;
}

export interface WatchSet {
  readonly reflectors: readonly Reflector[];
  /** Objects cached, by kind (a gauge). */
  sizes(): Readonly<Partial<Record<Kind, number>>>;
  /** Resolves true once every cache holds its first list, false after `timeoutMs`. */
  waitForSync(timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

function tenantLabel(obj: StoreChange["current"]): string | null {
  return obj?.metadata.labels?.[LABELS.namespace] ?? null;
}

/** Starts one reflector per watched kind, all on one transport of their own. */
export function startWatchSet(opts: WatchSetOptions): WatchSet {
  const transport = new KubeTransport(opts.kubeconfig, {
    counter: opts.counter,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    limiter: opts.limiter,
  });
  const byKind = new Map<Kind, Reflector>();
  // One table of strings for every cache: a tenant's ID and namespace name are in all of them.
  const strings = new Interner();
  const touched = (kind: Kind, change: StoreChange, source: ChangeSource): void => {
    const rv = change.current?.metadata.resourceVersion;
    const version =
      source === "watch" && rv !== undefined
        ? { kind, namespace: change.namespace, name: change.name, resourceVersion: rv }
        : null;
    if (kind === "Namespace") {
      const tenant = tenantLabel(change.current) ?? tenantLabel(change.previous);
      opts.onTouch({ namespace: change.name, tenant, version });
      return;
    }
    const tenant =
      tenantLabel(byKind.get("Namespace")?.store.get("", change.namespace) ?? null) ??
      tenantLabel(change.current) ??
      tenantLabel(change.previous);
    opts.onTouch({ namespace: change.namespace, tenant, version });
  };
  const reflectors = WATCHED_KINDS.map(
    ({ kind, labelSelector }) =>
      new Reflector({
        transport,
        kind,
        // A label-selected cache is indexed by its label: a pass finds its tenant's
        // namespace (`openclaw.dev/namespace=<id>`) by lookup, not by a scan of every tenant.
        ...(labelSelector !== undefined ? { labelSelector, indexLabel: labelSelector } : {}),
        onChange: (change, source) => {
          touched(kind, change, source);
        },
        onRestart: (reason, err) => opts.onRestart?.(kind, reason, err),
        strings,
        ...(opts.watchSeconds !== undefined ? { watchSeconds: opts.watchSeconds } : {}),
        ...(opts.maxBackoffMs !== undefined ? { maxBackoffMs: opts.maxBackoffMs } : {}),
      }),
  );
  for (const r of reflectors) byKind.set(r.kind, r);
  for (const r of reflectors) r.start();
  return {
    reflectors,
    sizes: () => Object.fromEntries(reflectors.map((r) => [r.kind, r.store.size])),
    async waitForSync(timeoutMs) {
      const all = await Promise.all(reflectors.map((r) => r.waitForSync(timeoutMs)));
      return all.every(Boolean);
    },
    async stop() {
      // Every loop told to stop first, then the transport closed: a list or a retry wait in
      // flight ends at once instead of running its attempts out against an absent server.
      const loops = reflectors.map((r) => r.stop());
      transport.close();
      await Promise.all(loops);
    },
  };
}
