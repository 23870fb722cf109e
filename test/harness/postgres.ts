import { execFileSync } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import {
  freePort,
  logTail,
  startProcess,
  stopProcess,
  waitUntil,
} from "../../src/devcluster/processes.js";

/** A PostgreSQL server started for this test run, reachable over loopback TCP. */
export interface TestPostgres {
  /** Connection string for the `postgres` maintenance database (superuser, trust auth). */
  readonly adminUrl: string;
  stop(): Promise<void>;
  /**
   * Stops the server (a fast shutdown: every connection is ended, as in an upgrade), runs
   * `whileDown`, and starts it again on the same port and data directory. Only for a server
   * this run started ({@link startTestPostgres}); a server of OCC_TEST_DATABASE_URL refuses.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
}

/** Finds Debian's PostgreSQL binaries (highest major version), or fails saying how to get them. */
export function postgresBinDir(): string {
  const base = "/usr/lib/postgresql";
  const majors = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, "bin", "postgres")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const major = majors[0];
  if (major === undefined) {
    throw new Error(
      "PostgreSQL is not installed: run `bash tools/prereqs.sh` (installs the Debian package " +
        "postgresql) or set OCC_TEST_DATABASE_URL to a server the tests may use.",
    );
  }
  return join(base, major, "bin");
}

/** `cmd args`, run as the `postgres` system user when this process is root (it refuses root). */
export function asPostgresUser(cmd: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0
    ? ["runuser", ["-u", "postgres", "--", cmd, ...args]]
    : [cmd, args];
}

/** A shell command word running PostgreSQL's `tool` (as the `postgres` user when root). */
export function postgresToolCommand(tool: string): string {
  const path = join(postgresBinDir(), tool);
  return process.getuid?.() === 0 ? `runuser -u postgres -- ${path}` : path;
}

/** Runs a PostgreSQL program (`initdb`, `pg_ctl`, `pg_basebackup`…) as {@link asPostgresUser}. */
export function runPostgresTool(tool: string, args: string[]): void {
  const [cmd, cmdArgs] = asPostgresUser(join(postgresBinDir(), tool), args);
  try {
    execFileSync(cmd, cmdArgs, { stdio: "pipe" });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? "";
    throw new Error(`PostgreSQL ${tool} failed: ${stderr || String(err)}`);
  }
}

/** Creates `dirs` (as the `postgres` user's when root, so the server may write there). */
export function makePostgresDirs(...dirs: string[]): void {
  for (const d of dirs) mkdirSync(d, { recursive: true });
  if (process.getuid?.() !== 0) return;
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  for (const d of dirs) chownSync(d, uid, gid);
}

/** A running server on `data` (its sockets in `dir`); `restart` as {@link TestPostgres}. */
export interface RunningPostgres {
  readonly adminUrl: string;
  readonly port: number;
  /** Stops it with `pg_ctl stop -m <mode>` (fast: sessions ended; immediate: a crash). */
  stopWith(mode: "fast" | "immediate"): Promise<void>;
  stop(): Promise<void>;
  restart(whileDown?: () => Promise<void>): Promise<void>;
}

/** Starts `postgres` on an initialised (or base-backed-up) data directory, on a free port. */
export async function runPostgres(
  dir: string,
  data: string,
  opts: {
    readonly network?: { readonly address: string } | undefined;
    readonly settings?: readonly string[];
    /** A port to reuse (a standby taking the place of a lost primary); default a free one. */
    readonly port?: number;
  } = {},
): Promise<RunningPostgres> {
  const bin = postgresBinDir();
  const port = opts.port ?? (await freePort());
  const [cmd, args] = asPostgresUser(join(bin, "postgres"), [
    "-D",
    data,
    "-p",
    String(port),
    "-c",
    `listen_addresses=127.0.0.1${opts.network !== undefined ? `,${opts.network.address}` : ""}`,
    "-c",
    `unix_socket_directories=${dir}`,
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "max_connections=300",
    ...(opts.settings ?? []).flatMap((setting) => ["-c", setting]),
  ]);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const launch = async () => {
    const started = startProcess("postgres", cmd, args, dir);
    await waitUntil("postgres", () => canConnect(adminUrl), {
      timeoutMs: 30_000,
      died: started.exited,
      describe: () => logTail(started),
    });
    return started;
  };
  let server = await launch();
  const stopWith = async (mode: "fast" | "immediate") => {
    runPostgresTool("pg_ctl", ["stop", "-D", data, "-m", mode, "-w"]);
    await server.exited;
  };
  return {
    adminUrl,
    port,
    stopWith,
    stop: () => stopProcess(server, 5_000),
    async restart(whileDown) {
      // pg_ctl's fast shutdown ends every session at once (SIGTERM would wait for the clients).
      await stopWith("fast");
      await whileDown?.();
      server = await launch();
    },
  };
}

/** `initdb` of a throwaway cluster in `data` (trust authentication, no fsync). */
export function initPostgres(dir: string, data: string): void {
  makePostgresDirs(dir, data);
  const args = ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"];
  runPostgresTool("initdb", args);
}

/**
 * Starts a throwaway server in `dir` on a free loopback port. PostgreSQL refuses to run as
 * root, so as root the server runs as the `postgres` system user the Debian package creates.
 */
export async function startTestPostgres(
  dir: string,
  /** Also listen on `address` and trust clients from `clientCidr` (pods, in the deployed tests). */
  network?: { readonly address: string; readonly clientCidr: string },
  /** More server settings, `name=value` (e.g. the bench's `shared_preload_libraries`). */
  settings: readonly string[] = [],
): Promise<TestPostgres> {
  const data = join(dir, "data");
  initPostgres(dir, data);
  if (network !== undefined) {
    appendFileSync(join(data, "pg_hba.conf"), `host all all ${network.clientCidr} trust\n`);
  }
  const server = await runPostgres(dir, data, { network, settings });
  return {
    adminUrl: server.adminUrl,
    stop: () => server.stop(),
    restart: (whileDown) => server.restart(whileDown),
  };
}

/** Uses a server the caller provides (OCC_TEST_DATABASE_URL), failing loudly if unreachable. */
export async function useExternalPostgres(url: string): Promise<TestPostgres> {
  try {
    await canConnect(url);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`OCC_TEST_DATABASE_URL is set but PostgreSQL there is unreachable: ${why}`);
  }
  return {
    adminUrl: url,
    stop: () => Promise.resolve(),
    restart: () =>
      Promise.reject(
        new Error("OCC_TEST_DATABASE_URL: a server the run did not start is never restarted"),
      ),
  };
}

/** Runs one statement on its own connection to `url` (opened and closed here); its rows. */
export async function sqlOnce<Row extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, params)).rows;
  } finally {
    await client.end();
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}
