/**
 * Issue 40 item 2: point-in-time recovery with Debian's PostgreSQL, the documented commands of
 * docs/operations.md "Point-in-time recovery" run as written. The test's own cluster (initdb,
 * run with `pg_ctl`) stands in for Debian's `15/main`: its paths, the base backup's date, the
 * target time and `systemctl` are replaced by this cluster's.
 *
 * Archiving on and a base backup taken; OCC (real `occ` processes on that cluster) creates a
 * principal through its API; the time T is noted; OCC creates another. Stop OCC, recover to T,
 * start OCC. Read back from PostgreSQL: the first principal is there (replayed from the
 * archive: the base backup predates it), the second is not, and the server left recovery.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../src/devcluster/processes.js";
import { callApi } from "../../harness/api.js";
import {
  documentedBlock,
  runBlock,
  runCommand,
  shown,
  type DocBlock,
  type RunOptions,
} from "../../harness/doc-blocks.js";
import { eventually } from "../../harness/kube.js";
import {
  initPostgres,
  makePostgresDirs,
  postgresBinDir,
  postgresToolCommand,
  sqlOnce,
} from "../../harness/postgres.js";
import { grantChartClusterRoles } from "../../harness/rbac.js";
import { startControlPlane, type ControlPlane } from "../e2e/control-plane.js";

let dir: string;
let data: string;
let port: number;
let plane: ControlPlane | undefined;

const pgCtl = (action: string) =>
  `${postgresToolCommand("pg_ctl")} ${action} -D ${data} -w -t 60 -m fast -l ${join(dir, "log")}`;
const adminUrl = () => `postgres://postgres@127.0.0.1:${port}/postgres`;

/** The documents' paths, date, target time and `systemctl` as this test's cluster has them. */
function runOpts(targetTime: string): RunOptions {
  const today = execFileSync("date", ["+%F"]).toString().trim();
  return {
    cwd: dir,
    env: { PATH: `${postgresBinDir()}:${process.env.PATH ?? ""}`, PGHOST: "127.0.0.1" },
    fill: {
      "'2026-12-05 14:30:00+00'": `'${targetTime}'`,
      "/var/lib/postgresql/base/2026-12-05": join(dir, "base", today),
      "/var/lib/postgresql/base": join(dir, "base"),
      "/var/lib/postgresql/wal-archive": join(dir, "wal-archive"),
      "/var/lib/postgresql/15/main": data,
      "/etc/postgresql/15/main/conf.d": join(dir, "conf.d"),
      "sudo -u postgres pg_basebackup": `${postgresToolCommand("pg_basebackup")} -p ${port} -U postgres`,
      // Not root (a developer's machine): the server runs as this user, who owns everything.
      ...(process.getuid?.() === 0
        ? {}
        : { "-o postgres -g postgres ": "", "postgres:postgres": "$(id -u):$(id -g)" }),
      "systemctl restart postgresql@15-main": pgCtl("restart"),
      "systemctl stop postgresql@15-main": pgCtl("stop"),
      "systemctl start postgresql@15-main": pgCtl("start"),
    },
    timeoutMs: 120_000,
  };
}

function run(block: DocBlock, targetTime = ""): void {
  for (const r of runBlock(block, runOpts(targetTime))) {
    expect(r.code, `${shown(r)}\n${logTail()}`).toBe(0);
  }
}

function logTail(): string {
  return runCommand(`tail -n 30 ${join(dir, "log")}`, { cwd: dir }).stdout;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-pitr-"));
  data = join(dir, "data");
  port = await freePort();
  initPostgres(dir, data);
  makePostgresDirs(join(dir, "conf.d"), join(dir, "base"));
  // Debian's cluster reads conf.d from /etc/postgresql/15/main; this one from the test's.
  appendFileSync(
    join(data, "postgresql.conf"),
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      "fsync = off",
      `include_dir = '${join(dir, "conf.d")}'`,
      "",
    ].join("\n"),
  );
  const started = runCommand(pgCtl("start"), { cwd: dir });
  expect(started.code, `${shown(started)}\n${logTail()}`).toBe(0);
  run(documentedBlock("pitr-archive"));
  await grantChartClusterRoles();
  plane = await startControlPlane({ adminDatabaseUrl: adminUrl() });
}, 180_000);

afterAll(async () => {
  await plane?.stop();
  runCommand(pgCtl("stop"), { cwd: dir });
  await rm(dir, { recursive: true, force: true });
}, 120_000);

async function principal(name: string): Promise<void> {
  if (plane === undefined) throw new Error("no control plane");
  const res = await callApi(plane, "POST", "/principals", { kind: "service", name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

describe("point-in-time recovery (continuous archiving, Debian's PostgreSQL)", () => {
  it("recovers the OCC database to exactly the state at the target time", async () => {
    if (plane === undefined) throw new Error("no control plane");
    const live = plane;
    expect((await sqlOnce<{ archive_mode: string }>(adminUrl(), "SHOW archive_mode"))[0]).toEqual({
      archive_mode: "on",
    });
    run(documentedBlock("pitr-basebackup"));
    await principal("pitr-before");
    await new Promise((r) => setTimeout(r, 200));
    const [{ t } = { t: "" }] = await sqlOnce<{ t: string }>(
      adminUrl(),
      "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS t",
    );
    await new Promise((r) => setTimeout(r, 200));
    await principal("pitr-after");
    // What archive_timeout does within a minute, at once: the segment holding both is archived.
    const [{ wal } = { wal: "" }] = await sqlOnce<{ wal: string }>(
      adminUrl(),
      "SELECT pg_walfile_name(pg_switch_wal()) AS wal",
    );
    await eventually(`${wal} archived`, async () => {
      const rows = await sqlOnce<{ last: string | null }>(
        adminUrl(),
        "SELECT last_archived_wal AS last FROM pg_stat_archiver",
      );
      return (rows[0]?.last ?? "") >= wal;
    });

    await live.restart(async () => {
      run(documentedBlock("pitr-recover"), t);
      await eventually(
        "recovery finished and promoted",
        async () =>
          (
            await sqlOnce<{ r: boolean }>(adminUrl(), "SELECT pg_is_in_recovery() AS r").catch(
              () => [{ r: true }],
            )
          )[0]?.r === false,
        60_000,
      );
    });
    const names = await live.db.query<{ name: string }>(
      "SELECT name FROM principals WHERE name LIKE 'pitr-%' ORDER BY name",
    );
    expect(
      names.rows.map((r) => r.name),
      logTail(),
    ).toEqual(["pitr-before"]);
    // OCC works on the recovered database: the API answers with what it holds.
    await principal("pitr-recovered");
  }, 180_000);
});
