/**
 * The API's claimant index (issue 39): which namespaces carry `openclaw.dev/namespace`, by the
 * tenant ID they claim, kept by one label-selected Namespace watch on the worker caches'
 * {@link Reflector} (list + watch, relist on `410 Gone`, bookmarks). It answers only "does any
 * namespace but the recorded one claim this tenant?" for a read of a tenant's objects
 * (`bound-namespace.ts`); the recorded namespace itself is always read afresh. Each namespace
 * costs its name, UID and tenant label here, nothing else.
 *
 * While the index is not current — its first list not in, a request failed since the last
 * success, or a relist after `410 Gone` under way — it answers `null`, and the caller lists
 * namespaces by label as the spec's resolution does.
 */
import { LABELS } from "../../../domain/placement/markers.js";
import type { KubeAccess, RequestCounter, RequestLimiter } from "../client/index.js";
import { KubeTransport } from "../client/transport.js";
import type { Cached, Interner } from "../watch/projection.js";
import { Reflector, type WatchRestartReason } from "../watch/reflector.js";

/** What a read's resolution asks of the index. */
export interface ClaimantIndex {
  /**
   * The names of the namespaces claiming `tenantId`, as the watch last saw them (at most its
   * lag behind the API server); `null` while the index is not current.
   */
  claimants(tenantId: string): readonly string[] | null;
}

/** The running index, as the process that started it holds it. */
export interface RunningClaimantIndex extends ClaimantIndex {
  /** Listed, watching, and no request failed since the last success. */
  readonly current: boolean;
  /** Namespaces held (a gauge). */
  readonly size: number;
  /** Resolves true once the first list is in, false after `timeoutMs` or a stop. */
  waitForSync(timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

export interface ClaimantIndexOptions {
  readonly kubeconfig: KubeAccess;
  /** Where the watch's requests are counted (the process's request counter). */
  readonly counter: RequestCounter;
  /** The process's request budget: the list takes from it, the watch does not. */
  readonly limiter?: RequestLimiter;
  readonly timeoutMs?: number;
  readonly onRestart?: (reason: WatchRestartReason, err?: unknown) => void;
  readonly watchSeconds?: number;
  readonly maxBackoffMs?: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A namespace reduced to its name, UID and tenant label. A namespace without the label is kept
 * unlabelled (a label-selected watch reports the object that left the selection as DELETED,
 * carrying its new labels: it must still be removable by name).
 */
function projectClaimant(raw: unknown, strings: Interner): Cached | null {
  if (!isRecord(raw) || !isRecord(raw.metadata)) return null;
  const { name, uid, labels } = raw.metadata;
  if (typeof name !== "string" || name === "") return null;
  const tenant = isRecord(labels) ? labels[LABELS.namespace] : undefined;
  return Object.freeze({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: Object.freeze({
      name: strings.intern(name),
      ...(typeof uid === "string" ? { uid } : {}),
      ...(typeof tenant === "string"
        ? { labels: Object.freeze({ [LABELS.namespace]: strings.intern(tenant) }) }
        : {}),
    }),
  });
}

/** Starts the index's watch on a transport of its own; `stop` ends both. */
export function startClaimantIndex(opts: ClaimantIndexOptions): RunningClaimantIndex {
  const transport = new KubeTransport(opts.kubeconfig, {
    counter: opts.counter,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    limiter: opts.limiter,
  });
  const reflector = new Reflector({
    transport,
    kind: "Namespace",
    labelSelector: LABELS.namespace,
    indexLabel: LABELS.namespace,
    project: projectClaimant,
    onChange: () => undefined,
    ...(opts.onRestart !== undefined ? { onRestart: opts.onRestart } : {}),
    ...(opts.watchSeconds !== undefined ? { watchSeconds: opts.watchSeconds } : {}),
    ...(opts.maxBackoffMs !== undefined ? { maxBackoffMs: opts.maxBackoffMs } : {}),
  });
  reflector.start();
  return {
    get current() {
      return reflector.current;
    },
    get size() {
      return reflector.store.size;
    },
    claimants(tenantId) {
      if (!reflector.current) return null;
      return (reflector.store.withLabel(tenantId) ?? []).map((o) => o.metadata.name);
    },
    waitForSync: (timeoutMs) => reflector.waitForSync(timeoutMs),
    async stop() {
      // The loop told to stop first, then the transport closed: a list in flight ends at once.
      const loop = reflector.stop();
      transport.close();
      await loop;
    },
  };
}
