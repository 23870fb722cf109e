import { Gauge, type Registry } from "prom-client";
import type { Db } from "../store/db.js";
import { oldestWaitingAges } from "../store/namespace-stats.js";
import { newestRunningHeartbeatAge } from "../store/worker-reports.js";
import { NAMESPACE_STATUSES } from "../domain/placement/namespace-status.js";

/** The statuses a tenant should not stay in: every one but `ready`. */
const WAITING_STATUSES = NAMESPACE_STATUSES.filter((s) => s !== "ready");

/**
 * What the chart's alerts need beyond counts, computed from the database when scraped (every
 * process serving `/metrics` reports the same): how long the oldest tenant has been in each
 * status but `ready`, and how long ago the last worker heartbeat was written.
 */
export function registerStatusAgeMetrics(registry: Registry, db: Db): void {
  new Gauge({
    name: "occ_namespace_status_oldest_age_seconds",
    help: "Seconds the longest-waiting live Namespace has been in each status but ready (since its status reason last changed, or its record's last update when it has none); 0 when none is in it.",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const ages = await oldestWaitingAges(db);
      this.reset();
      for (const status of WAITING_STATUSES) {
        const row = ages.find((r) => r.status === status);
        this.set({ status }, row === undefined ? 0 : Math.max(0, row.age));
      }
    },
  });
  new Gauge({
    name: "occ_worker_heartbeat_age_seconds",
    help: "Seconds since the newest heartbeat of any running worker (written every 10 s); +Inf when no worker is running.",
    registers: [registry],
    async collect() {
      const age = await newestRunningHeartbeatAge(db);
      this.set(age === null ? Number.POSITIVE_INFINITY : Math.max(0, age));
    },
  });
}
