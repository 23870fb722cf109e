/**
 * The worker's orphan scan (quality.md R9, docs/operations.md "Backup and restore"): at start
 * and then once per resync period it lists the tenant-labelled namespaces (from the namespace
 * watch cache: no request once synced) and asks the database which of the IDs they name it
 * knows. Each orphan new to this process is logged (the first {@link ORPHANS_LOGGED_BY_NAME}
 * of a scan by name, the rest counted in one line) and gets one Kubernetes Event per worker
 * process (`KUBERNETES_NAMESPACE_ORPHANED`, best effort); the count by placement goes to the
 * `occ_orphan_namespaces` gauge. Read-only: nothing is queued, written or deleted for an
 * orphan — only an administrator's import or an operator's release ends it.
 */
import type { Logger } from "pino";
import {
  ORPHAN_EVENT_MESSAGE,
  ORPHAN_EVENT_REASON,
  type OrphanNamespace,
} from "../domain/placement/orphans.js";
import type { MarkedNamespaces } from "../drivers/marked-namespaces.js";
import type { NamespaceEvent } from "../drivers/events.js";
import { findOrphans } from "../services/namespaces/orphans.js";
import type { Db } from "../store/db.js";

/** New orphans one scan logs by name; beyond these, one summary line (the Events still go out). */
export const ORPHANS_LOGGED_BY_NAME = 20;

export interface OrphanScanOptions {
  readonly db: Db;
  readonly marked: MarkedNamespaces;
  readonly everyMs: number;
  readonly logger: Logger;
  /** The first scan, after start; default 1 s (the watch caches are syncing meanwhile). */
  readonly firstAfterMs?: number;
  readonly onScan?: (byPlacement: Readonly<Record<string, number>>) => void;
  readonly events?: (namespace: string, event: NamespaceEvent) => Promise<boolean>;
}

export function startOrphanScan(opts: OrphanScanOptions): { stop(): Promise<void> } {
  const reported = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  /** Whether `orphan` is new to this process (each is reported once). */
  const isNew = (orphan: OrphanNamespace): boolean => {
    const key = `${orphan.kubernetesNamespace}/${orphan.uid ?? ""}`;
    if (reported.has(key)) return false;
    reported.add(key);
    return true;
  };
  const report = async (orphan: OrphanNamespace, logged: boolean): Promise<void> => {
    if (logged) {
      opts.logger.warn(
        {
          kubernetesNamespace: orphan.kubernetesNamespace,
          placement: orphan.placement,
          namespaceIds: orphan.namespaceIds,
        },
        "orphaned namespace: its tenant markers name a platform Namespace the database does not know; never deleted, adopted or modified",
      );
    }
    if (!orphan.terminating) {
      await opts.events?.(orphan.kubernetesNamespace, {
        type: "Warning",
        reason: ORPHAN_EVENT_REASON,
        message: ORPHAN_EVENT_MESSAGE,
      });
    }
  };
  const scan = async (): Promise<void> => {
    try {
      const orphans = await findOrphans(opts.db, opts.marked);
      opts.onScan?.(countByPlacement(orphans));
      const fresh = orphans.filter(isNew);
      // After a restore there may be thousands: the first few by name, then one line for the rest.
      const unlogged = fresh.length - ORPHANS_LOGGED_BY_NAME;
      if (unlogged > 0) {
        opts.logger.warn(
          {
            orphans: fresh.length,
            byPlacement: countByPlacement(fresh),
            notLoggedByName: unlogged,
          },
          `${String(fresh.length)} orphaned namespaces found; the first ${String(ORPHANS_LOGGED_BY_NAME)} are logged by name, each has a Warning Event, and \`occ namespaces orphans\` lists every one`,
        );
      }
      for (const [i, o] of fresh.entries()) await report(o, i < ORPHANS_LOGGED_BY_NAME);
    } catch (err) {
      // Cut off by the stop (its Kubernetes client closed): nothing to report.
      if (stopped) return;
      opts.logger.warn({ err }, "orphan scan failed; the next one tries again");
    }
  };
  const schedule = (ms: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = scan().then(() => {
        schedule(opts.everyMs);
      });
    }, ms);
  };
  schedule(opts.firstAfterMs ?? 1_000);
  return {
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await running;
    },
  };
}

/** How many of `orphans` each placement has. */
function countByPlacement(orphans: readonly OrphanNamespace[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of orphans) counts[o.placement] = (counts[o.placement] ?? 0) + 1;
  return counts;
}
