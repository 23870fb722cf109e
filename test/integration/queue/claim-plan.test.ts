/**
 * A burst of new work — a large organisation onboarded at once — outruns the statistics of the
 * queue: a fresh installation has none, and a running one analyzed the table while nothing was
 * queued (a few thousand new rows in a large table do not trigger a new analyze). Either way
 * the planner expects about one queued row. The claim must still walk the queued index in claim
 * order and stop at the first eligible row, and read the claimed lane's Namespace by primary
 * key: estimating one row, a plain query read and sorted every queued item for each claim
 * (O(queued), a burst O(n²)). The plans are read back from PostgreSQL itself, the claim's and
 * the one of the query inside `work_items_oldest_queued` (auto_explain, sent as notices).
 */
import pg from "pg";
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

const QUEUED = 2000;

interface PlanNode {
  readonly "Node Type": string;
  readonly "Index Name"?: string;
  readonly "Relation Name"?: string;
  readonly "Actual Rows": number;
  readonly Plans?: readonly PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;

/** A database with `QUEUED` placements queued; `analyzeFirst`: analyzed while none was. */
async function burst(analyzeFirst: boolean): Promise<TestDatabase> {
  const t = await createTestDatabase();
  await migrate(t.db);
  // No autovacuum analyze may run during the test: the statistics stay what the case says.
  await t.db.exec(
    "ALTER TABLE work_items SET (autovacuum_enabled = false); ALTER TABLE namespaces SET (autovacuum_enabled = false)",
  );
  const config = validateInstallationConfig({ kubernetes: { kubeconfig: "/dev/null" } }, "test");
  const boot = await runBootstrap(t.db, config);
  if (analyzeFirst) await t.db.exec("ANALYZE work_items; ANALYZE namespaces");
  const deps = namespaceServiceDeps(t.db, workQueuePolicy(config));
  for (let i = 0; i < QUEUED; i += 1) {
    await createNamespace(deps, { principalId: boot.administratorId }, { name: `burst-${i}` });
  }
  return t;
}

/**
 * The statement a claim sends, run once more on a connection of its own with auto_explain
 * reporting every plan it executes (the nested query too), in a transaction rolled back.
 */
async function explainClaim(t: TestDatabase, attach?: string): Promise<PlanNode[][]> {
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
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  const plans: PlanNode[][] = [];
  client.on("notice", (n) => {
    const json = n.message?.split("plan:\n")[1];
    if (json !== undefined) plans.push(nodes((JSON.parse(json) as { Plan: PlanNode }).Plan));
  });
  try {
    await client.query(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0;
      SET auto_explain.log_analyze = on; SET auto_explain.log_nested_statements = on;
      SET auto_explain.log_format = json; SET auto_explain.log_level = notice`);
    await client.query("BEGIN");
    await client.query(sent.sql, [...sent.params]);
    await client.query("ROLLBACK");
  } finally {
    await client.end();
  }
  return plans;
}

const attach = namespaceWork({
  db: undefined as never,
  queue: createWorkQueue({ kinds: NAMESPACE_WORK_KINDS }),
  compute: undefined as never,
}).target.sql;

describe.each([
  ["never analyzed", false],
  ["analyzed while nothing was queued", true],
])("the claim over a burst of %s", (_how, analyzeFirst) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await burst(analyzeFirst);
  }, 180_000);
  afterAll(async () => {
    await t.drop();
  });

  it("has statistics that expect next to nothing queued (the premise)", async () => {
    const res = await t.db.query<{ analyzed: boolean; queued: number | null }>(
      `SELECT (s.last_analyze IS NOT NULL) AS analyzed,
              (SELECT c.reltuples FROM pg_class c WHERE c.oid = 'work_items'::regclass) AS queued
       FROM pg_stat_user_tables s WHERE s.relname = 'work_items'`,
    );
    expect(res.rows[0]?.analyzed).toBe(analyzeFirst);
    expect(res.rows[0]?.queued).toBeLessThan(10);
  });

  it("reads one queued item from the index in claim order, and sorts none", async () => {
    const plans = await explainClaim(t);
    const walk = plans.find((p) => p.some((n) => n["Index Name"] === "work_items_queued"));
    expect(walk, "the plan of the query inside work_items_oldest_queued").toBeDefined();
    const queued = (walk ?? []).filter((n) => n["Index Name"] === "work_items_queued");
    expect(queued.map((n) => [n["Node Type"], n["Actual Rows"]])).toEqual([["Index Scan", 1]]);
    expect((walk ?? []).map((n) => n["Node Type"])).not.toContain("Sort");
  });

  it("reads the claimed lane's Namespace by primary key, not by scanning the table", async () => {
    const plans = await explainClaim(t, attach);
    const onNamespaces = plans.flat().filter((n) => n["Relation Name"] === "namespaces");
    expect(onNamespaces.map((n) => [n["Node Type"], n["Index Name"], n["Actual Rows"]])).toEqual([
      ["Index Scan", "namespaces_pkey", 1],
    ]);
  });
});
