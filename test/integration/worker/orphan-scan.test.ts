/**
 * The worker's orphan scan after a restore that left many orphans (issue 39: a fresh worker at
 * scale logged one warning per orphan, ~20,000 lines): every orphan still gets its Warning
 * Event, read back from the API server, but one scan logs at most `ORPHANS_LOGGED_BY_NAME` by
 * name and one line counting them all; a later scan logs nothing for orphans already reported.
 */
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { LABELS } from "../../../src/domain/index.js";
import { ORPHAN_EVENT_REASON } from "../../../src/domain/placement/orphans.js";
import { ORPHANS_LOGGED_BY_NAME, startOrphanScan } from "../../../src/worker/orphan-scan.js";
import { eventually, kubeAs, uniqueName } from "../../harness/kube.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { workerTestEnvironment } from "./environment.js";

const env = workerTestEnvironment();
const admin = kubeAs("admin");
const ORPHANS = ORPHANS_LOGGED_BY_NAME + 5;
const names = Array.from({ length: ORPHANS }, () => uniqueName("orphan-scan"));

afterAll(async () => {
  await Promise.all(
    names.map((name) => admin.core.deleteNamespace({ name }).catch(() => undefined)),
  );
});

interface Line {
  readonly msg: string;
  readonly kubernetesNamespace?: string;
  readonly orphans?: number;
  readonly notLoggedByName?: number;
}

/** A pino logger whose lines land in `lines`. */
function capturing(lines: Line[]) {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const text of chunk.toString("utf8").split("\n")) {
        if (text !== "") lines.push(JSON.parse(text) as Line);
      }
      done();
    },
  });
  return pino({ level: "info" }, sink);
}

describe("the orphan scan with many orphans", () => {
  it("records an Event in every orphan, logs the first ones by name and one line counting all, and nothing again on the next scan", async () => {
    for (const name of names) {
      // Tenant markers naming IDs this test's database never held: orphans to its worker.
      await admin.core.createNamespace({
        body: { metadata: { name, labels: { [LABELS.namespace]: uniqueName("ghost") } } },
      });
      // As in a tenant namespace: the worker may record Events there.
      await bindTenantRole(name, "occ-worker");
    }
    const { marked, events } = env.runtime;
    if (marked === null || events === null) throw new Error("the bundled driver has both");
    const lines: Line[] = [];
    const scan = startOrphanScan({
      db: env.db,
      marked,
      events,
      everyMs: 500,
      firstAfterMs: 0,
      logger: capturing(lines),
    });
    try {
      for (const name of names) {
        await eventually(`the orphan Event in ${name}`, async () => {
          const list = await admin.core.listNamespacedEvent({ namespace: name });
          return list.items.some((e) => e.reason === ORPHAN_EVENT_REASON && e.type === "Warning");
        });
      }
      // The first scan: its summary line, then exactly the first orphans by name. (Other
      // files' tenants share the cluster and are orphans to this database too; ones they
      // create later may be logged by later scans.)
      const [summary, ...rest] = lines;
      const first = rest.slice(0, ORPHANS_LOGGED_BY_NAME);
      expect(summary?.orphans).toBeGreaterThanOrEqual(ORPHANS);
      expect(summary?.notLoggedByName).toBe((summary?.orphans ?? 0) - ORPHANS_LOGGED_BY_NAME);
      expect(summary?.msg).toContain("occ namespaces orphans");
      expect(first).toHaveLength(ORPHANS_LOGGED_BY_NAME);
      expect(first.every((l) => l.kubernetesNamespace !== undefined)).toBe(true);

      // Two more scans (every 500 ms): none of this test's orphans is logged again.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const later = lines.slice(1 + ORPHANS_LOGGED_BY_NAME);
      expect(later.filter((l) => names.includes(l.kubernetesNamespace ?? ""))).toEqual([]);
    } finally {
      await scan.stop();
    }
  });
});
