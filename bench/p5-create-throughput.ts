import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { runBootstrap } from "../src/main/processes.js";
import { WORK_CHANNEL } from "../src/queue/index.js";
import type { Db } from "../src/store/db.js";
import type { BenchEnvironment } from "./environment.js";
import { keepAliveClient } from "./keepalive-client.js";
import { startOcc } from "./occ-process.js";
import { POD_HEAP } from "./provisioning.js";

export interface CreateThroughputResult {
  readonly apiPerSecond: number;
  readonly pgbenchTps: number;
}

/**
 * P5: `POST /namespaces` throughput of an `occ api` child process (`opts.occ`: the compiled
 * entry point, as the image runs it; no worker running) with
 * `concurrency` clients for `seconds`, vs pgbench on the same PostgreSQL with the same
 * concurrency and duration, each transaction making the writes the API makes for one create
 * (namespace row, work item, pg_notify, audit event; literals copied from a row the API
 * wrote). Both run on one fresh database of their own.
 */
export async function measureCreateThroughput(
  env: BenchEnvironment,
  opts: {
    occ: string;
    concurrency: number;
    seconds: number;
    log: (line: string) => void;
    /** Where `occ api` writes a `--cpu-prof` profile of the whole run (BENCH_P5_CPU_PROF). */
    cpuProfileDir?: string | undefined;
  },
): Promise<CreateThroughputResult> {
  const pgbench = findPgbench(); // before anything starts: no pgbench, no P5
  const { url, db } = await env.database(`occ_p5_c${opts.concurrency}`);
  const boot = await runBootstrap(db, env.config);
  const key = boot.apiKey ?? "";
  const api = await startOcc(
    opts.occ,
    ["api", "--database-url", url, "--config", env.configFile, "--port", "0"],
    /listening on (http:\/\/\S+)/,
    {
      logFile: join(env.dir, `p5-api-c${opts.concurrency}.log`),
      // As P1, P6 and P9: the heap V8 gives a pod of the chart's limit (provisioning.ts).
      nodeArgs: [
        ...POD_HEAP,
        ...(opts.cpuProfileDir === undefined
          ? []
          : ["--cpu-prof", `--cpu-prof-dir=${opts.cpuProfileDir}`]),
      ],
    },
  );
  let apiPerSecond: number;
  const http = keepAliveClient(api.announced, key, opts.concurrency);
  try {
    const load = async (prefix: string, ms: number): Promise<number> => {
      let done = 0;
      const until = performance.now() + ms;
      await Promise.all(
        Array.from({ length: opts.concurrency }, async (_, c) => {
          for (let i = 0; performance.now() < until; i++) {
            await http.post(`${prefix}-${c}-${i}`);
            done += 1;
          }
        }),
      );
      return done;
    };
    opts.log(`P5: POST /namespaces, ${opts.concurrency} clients, 2 s warm-up + ${opts.seconds} s`);
    await load("p5-warm", 2_000);
    const xacts = () =>
      db
        .query<{ n: string }>(
          "SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()",
        )
        .then((r) => Number(r.rows[0]?.n));
    await new Promise((r) => setTimeout(r, 1_500)); // statistics are flushed within ~1 s
    const backends = await postgresBackends(db);
    const [xact0, cpu0, pg0] = [await xacts(), await api.cpuSeconds(), await cpuOf(backends)];
    const client0 = process.cpuUsage();
    const start = performance.now();
    const created = await load("p5", opts.seconds * 1_000);
    const seconds = (performance.now() - start) / 1_000;
    apiPerSecond = created / seconds;
    const clientCpu = cpuSecondsOf(process.cpuUsage(client0));
    const cpu = (await api.cpuSeconds()) - cpu0;
    const pgCpu = (await cpuOf(backends)) - pg0;
    await new Promise((r) => setTimeout(r, 1_500));
    const perCreate = (s: number) =>
      `${((1_000 * s) / created).toFixed(2)} ms (${((100 * s) / seconds).toFixed(0)}% of a core)`;
    opts.log(
      `P5: ${created} creates; CPU per create: API process ${perCreate(cpu)}, ` +
        `PostgreSQL backends ${perCreate(pgCpu)}, the bench's HTTP clients ${perCreate(clientCpu)}; ` +
        `${(((await xacts()) - xact0 - 1) / created).toFixed(1)} database transactions per create`,
    );
  } finally {
    http.close();
    await api.stop();
  }

  const script = join(env.dir, "p5-create.sql");
  await writeFile(script, await pgbenchScript(db));
  opts.log(`P5: pgbench -c ${opts.concurrency} -T ${opts.seconds} with the same writes`);
  const c = String(opts.concurrency);
  const out = await promisify(execFile)(
    pgbench,
    ["-n", "-M", "simple", "-c", c, "-j", c, "-T", String(opts.seconds), "-f", script, url],
    { maxBuffer: 1 << 20 },
  );
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out.stdout)?.[1];
  if (tps === undefined) throw new Error(`P5: no tps in pgbench output:\n${out.stdout}`);
  const failed = /number of failed transactions: (\d+)/.exec(out.stdout)?.[1];
  if (failed !== undefined && failed !== "0") {
    throw new Error(`P5: pgbench transactions failed:\n${out.stdout}`);
  }
  opts.log(`P5: pgbench ${tps} tps (API ${apiPerSecond.toFixed(0)}/s)`);
  return { apiPerSecond, pgbenchTps: Number(tps) };
}

/** The PostgreSQL server processes serving `db`'s database now (the API's pooled sessions). */
async function postgresBackends(db: Db): Promise<number[]> {
  const res = await db.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
  );
  return res.rows.map((r) => r.pid);
}

/** CPU seconds (user + system) the processes used so far; a process gone counts 0. */
async function cpuOf(pids: readonly number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // exited
    }
  }
  return total;
}

function cpuSecondsOf(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1e6;
}

/** pgbench from Debian's PostgreSQL (highest major version), else from PATH; never skipped. */
function findPgbench(): string {
  const base = "/usr/lib/postgresql";
  const versioned = existsSync(base)
    ? readdirSync(base)
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => join(base, v, "bin", "pgbench"))
        .filter((p) => existsSync(p))
    : [];
  const onPath = (process.env.PATH ?? "")
    .split(":")
    .map((d) => join(d, "pgbench"))
    .filter((p) => existsSync(p));
  const found = [...versioned, ...onPath][0];
  if (found === undefined) {
    throw new Error(
      "P5 needs pgbench, which is not installed: install Debian's postgresql-contrib / " +
        "postgresql-client (it ships /usr/lib/postgresql/<major>/bin/pgbench) or put it on PATH.",
    );
  }
  return found;
}

/**
 * One pgbench transaction making the writes of one API create, in the same one statement: the
 * namespace insert, then (only when it inserted) the work item insert, pg_notify and the audit
 * insert, each with the RETURNING the store uses. Actor, attempts, deadline, request ID shape and audit details are
 * copied from a create the API made.
 */
async function pgbenchScript(db: Db): Promise<string> {
  const work = await db.query<{ actor: string; max_attempts: number; deadline_ms: string }>(
    `SELECT actor, max_attempts,
            extract(epoch FROM deadline_at - available_at) * 1000 AS deadline_ms
     FROM work_items WHERE subject LIKE 'namespace:%' ORDER BY created_at DESC LIMIT 1`,
  );
  const audit = await db.query<{ request_id: string | null; details: unknown }>(
    `SELECT request_id, details FROM audit_events
     WHERE action = 'namespaces.create' ORDER BY occurred_at DESC LIMIT 1`,
  );
  const w = work.rows[0];
  const a = audit.rows[0];
  if (w === undefined || a === undefined) throw new Error("P5: the API wrote no create to copy");
  const lit = (v: string) => `'${v.replace(/'/g, "''")}'`;
  const id = "'ns_pgb_' || :client_id::text || '_' || :r::text";
  const requestId = a.request_id === null ? "NULL" : `${lit(a.request_id)} || :r::text`;
  // As the API sends it (src/store/composed.ts): one statement, the row first and the work
  // item, its NOTIFY and the audit event only when the row was inserted.
  const statement = [
    `WITH inserted AS (INSERT INTO namespaces (id, name, placement_mode, existing_namespace) VALUES (${id}, 'pgb-' || :client_id::text || '-' || :r::text, 'managed', NULL) ON CONFLICT DO NOTHING RETURNING *),`,
    `p0_item AS (INSERT INTO work_items (idempotency_key, kind, subject, actor, max_attempts, available_at, deadline_at, created_at, updated_at) SELECT 'namespace:' || ${id} || ':ready', 'namespace.ensure', 'namespace:' || ${id}, ${lit(w.actor)}, ${w.max_attempts}, n.t, n.t + ${Number(w.deadline_ms)}::float8 * interval '1 millisecond', n.t, n.t FROM (SELECT COALESCE(NULL::timestamptz, statement_timestamp()) AS t) AS n, inserted ON CONFLICT (idempotency_key) DO NOTHING RETURNING kind),`,
    `p0_notified AS (SELECT pg_notify(${lit(WORK_CHANNEL)}, kind) FROM p0_item),`,
    `p1_event AS (INSERT INTO audit_events (occurred_at, kind, actor, action, resource_kind, resource_id, outcome, request_id, details) SELECT COALESCE(NULL::timestamptz, now()), 'mutation', ${lit(w.actor)}, 'namespaces.create', 'namespace', ${id}, 'success', ${requestId}, ${lit(JSON.stringify(a.details))}::jsonb FROM inserted RETURNING id)`,
    "SELECT inserted.*, (SELECT count(*) FROM p0_item) AS p0_item_rows, (SELECT count(*) FROM p0_notified) AS p0_notified_rows, (SELECT count(*) FROM p1_event) AS p1_event_rows FROM inserted;",
  ].join(" ");
  return ["\\set r random(1, 1000000000000000)", statement, ""].join("\n");
}
