import type { Logger } from "pino";
import type { NamespaceId } from "../domain/placement/ids.js";
import type { TenantTouch } from "../drivers/kubernetes/watch/watch-set.js";
import type { Db } from "../store/db.js";
import { liveNamespaceIdsTouching } from "../store/namespace-reads.js";

/** Queues one pass for each of these tenants, deduplicated with what is already queued. */
export type RequestPasses = (ids: readonly NamespaceId[]) => Promise<unknown>;

export interface TouchBatcher {
  /** A watched object changed in this Kubernetes namespace. */
  touch(t: TenantTouch): void;
  /** Sends what is batched now (tests, shutdown). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Turns watch changes into tenant passes. Changes are gathered for `delayMs` (a burst of
 * events on one tenant becomes one request), then mapped to platform Namespaces in one query:
 * by the tenant label the objects carried, or else by the Kubernetes namespace name the
 * database binds (an external namespace selected but not yet bound carries no label). A change
 * in a namespace no tenant uses queues nothing.
 *
 * `isEcho` is asked once a touch is `delayMs` old, not when the event arrives: the watch event
 * of a write may come before the write's own response has been recorded, and `delayMs` later
 * it has been. (So each touch waits between `delayMs` and twice that; `flush` sends every
 * touch at once.) A touch it recognises as the echo of the worker's own write is dropped;
 * every other touch queues its tenant as before.
 */
export function touchBatcher(opts: {
  readonly db: Db;
  readonly requestPasses: RequestPasses;
  readonly logger: Logger;
  readonly delayMs?: number;
  /** Called with how many passes each flush requested (metrics). */
  readonly onRequested?: (count: number) => void;
  /** True for the echo of the worker's own write (`OwnWrites.consume`); default: none is. */
  readonly isEcho?: (t: TenantTouch) => boolean;
}): TouchBatcher {
  const delayMs = opts.delayMs ?? 50;
  let pending: { readonly touch: TenantTouch; readonly at: number }[] = [];
  let timer: NodeJS.Timeout | null = null;
  let inflight: Promise<void> = Promise.resolve();

  const send = async (all: boolean): Promise<void> => {
    timer = null;
    const now = Date.now();
    const due = all ? pending : pending.filter((p) => now - p.at >= delayMs);
    pending = all ? [] : pending.filter((p) => now - p.at < delayMs);
    const next = pending[0];
    if (next !== undefined) schedule(Math.max(1, next.at + delayMs - now));
    const names = new Set<string>();
    const hinted = new Set<string>();
    for (const { touch: t } of due) {
      if (opts.isEcho?.(t) === true) continue;
      names.add(t.namespace);
      if (t.tenant !== null) hinted.add(t.tenant);
    }
    const byName = [...names];
    const byId = [...hinted];
    if (byName.length === 0 && byId.length === 0) return;
    try {
      const ids = await liveNamespaceIdsTouching(opts.db, byId, byName);
      if (ids.length === 0) return;
      await opts.requestPasses(ids);
      opts.onRequested?.(ids.length);
    } catch (err) {
      // The periodic resync queues every live Namespace anyway; nothing is lost for good.
      opts.logger.warn({ err, namespaces: byName }, "could not queue passes for watched changes");
    }
  };
  const enqueue = (all: boolean): Promise<void> => {
    if (timer !== null) clearTimeout(timer);
    inflight = inflight.then(() => send(all));
    return inflight;
  };
  function schedule(ms: number): void {
    timer ??= setTimeout(() => void enqueue(false), ms);
  }
  const flush = () => enqueue(true);

  return {
    touch(t) {
      pending.push({ touch: t, at: Date.now() });
      schedule(delayMs);
    },
    flush,
    async stop() {
      await flush();
    },
  };
}
