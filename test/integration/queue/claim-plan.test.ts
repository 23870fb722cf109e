/**
 * A burst of new work — a large organisation onboarded at once — lands in a table PostgreSQL
 * has no statistics for yet. The claim must still read the queued index in claim order and
 * stop at the first eligible row, and read the claimed lane's Namespace by primary key: before
 * it did, a claim read and sorted every queued item (O(queued), a burst O(n²)). The plans are
 * read back from PostgreSQL itself (EXPLAIN ANALYZE of the statement the queue sends).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { runBootstrap } from "../../../src/main/processes.js";
import { createWorkQueue } from "../../../src/queue/index.js";
import { createNamespace } from "../../../src/services/namespaces/create.js";
import type { Db, SqlParam } from "../../../src/store/db.js";
import { migrate } from "../../../src/store/migrate.js";
import { NAMESPACE_WORK_KINDS } from "../../../src/work/namespace-work.js";
import { workQueuePolicy } from "../../../src/work/queues.js";
import { namespaceWork } from "../../../src/worker/namespace-pass.js";
import { createTestDatabase } from "../../harness/db.js";
import { namespaceServiceDeps } from "../../harness/namespace-service.js";

const QUEUED = 600;
let t: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db);
  // Deterministically without statistics: no autovacuum analyze may run during the test.
  await t.db.exec(
    "ALTER TABLE work_items SET (autovacuum_enabled = false); ALTER TABLE namespaces SET (autovacuum_enabled = false)",
  );
  const config = validateInstallationConfig({ kubernetes: { kubeconfig: "/dev/null" } }, "test");
  const boot = await runBootstrap(t.db, config);
  const deps = namespaceServiceDeps(t.db, workQueuePolicy(config));
  for (let i = 0; i < QUEUED; i += 1) {
    await createNamespace(deps, { principalId: boot.administratorId }, { name: `burst-${i}` });
  }
}, 120_000);
afterAll(async () => {
  await t.drop();
});

interface PlanNode {
  readonly "Node Type": string;
  readonly "Index Name"?: string;
  readonly "Relation Name"?: string;
  readonly "Actual Rows": number;
  readonly "Actual Loops": number;
  readonly Plans?: readonly PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The statement a claim sends, explained (in a transaction rolled back: nothing is claimed). */
async function explainClaim(attach?: string): Promise<PlanNode[]> {
  const queue = createWorkQueue({ kinds: NAMESPACE_WORK_KINDS });
  let sent: { sql: string; params: readonly SqlParam[] } | undefined;
  const recording: Db = {
    ...t.db,
    query: (sql, params = []) => {
      sent = { sql, params };
      return t.db.query(sql, params);
    },
  };
  const claimed = await queue.claim(recording, { owner: "plan", ...(attach ? { attach } : {}) });
  if (claimed === null || sent === undefined) throw new Error("nothing was claimed");
  const { sql, params } = sent;
  const explained = await t.db
    .transaction(async (tx) => {
      const res = await tx.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
        params,
      );
      throw Object.assign(new Error("rollback"), { plan: res.rows[0]?.["QUERY PLAN"][0].Plan });
    })
    .catch((err: unknown) => (err as { plan?: PlanNode }).plan);
  if (explained === undefined) throw new Error("no plan");
  return nodes(explained);
}

describe("the claim over a burst of queued work without statistics", () => {
  it("has no statistics to go on (the premise)", async () => {
    const res = await t.db.query<{ relname: string; analyzed: boolean }>(
      `SELECT relname, (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL) AS analyzed
       FROM pg_stat_user_tables WHERE relname IN ('work_items', 'namespaces') ORDER BY relname`,
    );
    expect(res.rows).toEqual([
      { relname: "namespaces", analyzed: false },
      { relname: "work_items", analyzed: false },
    ]);
  });

  it("reads one queued item from the index in claim order, not all of them", async () => {
    const plan = await explainClaim();
    const queued = plan.filter((n) => n["Index Name"] === "work_items_queued");
    expect(queued.length).toBe(1);
    expect(queued[0]?.["Actual Rows"]).toBeLessThanOrEqual(1);
  });

  it("reads the claimed lane's Namespace by primary key, not by scanning the table", async () => {
    const attach = namespaceWork({
      db: t.db,
      queue: createWorkQueue({ kinds: NAMESPACE_WORK_KINDS }),
      compute: undefined as never,
    }).claimedTarget?.sql;
    const plan = await explainClaim(attach);
    const onNamespaces = plan.filter((n) => n["Relation Name"] === "namespaces");
    expect(onNamespaces.map((n) => [n["Node Type"], n["Index Name"], n["Actual Rows"]])).toEqual([
      ["Index Scan", "namespaces_pkey", 1],
    ]);
  });
});
