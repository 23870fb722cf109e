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
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const wrap = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
  const data = join(dir, "data");
  mkdirSync(data, { recursive: true });
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
    chownSync(data, uid, gid);
  }
  const [initCmd, initArgs] = wrap(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "postgres",
    "-A",
    "trust",
    "--no-sync",
    "-E",
    "UTF8",
  ]);
  try {
    execFileSync(initCmd, initArgs, { stdio: "pipe" });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? "";
    throw new Error(`PostgreSQL initdb failed in ${data}: ${stderr || String(err)}`);
  }
  if (network !== undefined) {
    appendFileSync(join(data, "pg_hba.conf"), `host all all ${network.clientCidr} trust\n`);
  }
  const port = await freePort();
  const [cmd, args] = wrap(join(bin, "postgres"), [
    "-D",
    data,
    "-p",
    String(port),
    "-c",
    `listen_addresses=127.0.0.1${network !== undefined ? `,${network.address}` : ""}`,
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
    ...settings.flatMap((setting) => ["-c", setting]),
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
  return {
    adminUrl,
    stop: () => stopProcess(server, 5_000),
    async restart(whileDown) {
      // pg_ctl's fast shutdown ends every session at once (SIGTERM would wait for the clients).
      const [ctl, ctlArgs] = wrap(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "fast", "-w"]);
      execFileSync(ctl, ctlArgs, { stdio: "pipe" });
      await server.exited;
      await whileDown?.();
      server = await launch();
    },
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
