/**
 * The API's log is written asynchronously (issue 20, P5) and still complete: a real `occ api`
 * process answers a burst of creates, is sent SIGTERM the moment the last answer arrives, and
 * its stdout — read until the pipe closes — holds one "request completed" line for every
 * request it answered, then its "api stopped" line last. Counted against the rows the creates
 * stored in PostgreSQL.
 *
 * Graceful shutdown wherever the output goes (quality.md R11): the real `occ api` and
 * `occ worker`, with stdout and stderr to a pipe, to a regular file (`nohup … > occ.log`,
 * systemd's `StandardOutput=file:`) and to /dev/null, exit 0 on SIGTERM, and where the output
 * can be read its last line is the process's stopped line.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../../../src/devcluster/processes.js";
import { createTestDatabase } from "../../harness/db.js";
import { eventually } from "../../harness/kube.js";
import { occ, spawnOcc, startOcc, type OccProcess } from "../../harness/occ.js";
import { grantChartClusterRoles } from "../../harness/rbac.js";

let dir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let common: string[];
let workerCommon: string[];
let apiKey: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-async-log-"));
  database = await createTestDatabase();
  const config = join(dir, "config.yaml");
  await writeFile(config, `kubernetes:\n  kubeconfig: ${inject("env").kubeconfigs["occ-api"]}\n`);
  common = ["--database-url", database.url, "--config", config];
  const workerConfig = join(dir, "worker.yaml");
  await writeFile(
    workerConfig,
    `kubernetes:\n  kubeconfig: ${inject("env").kubeconfigs["occ-worker"]}\n`,
  );
  workerCommon = ["--database-url", database.url, "--config", workerConfig];
  await grantChartClusterRoles();
  occ(["migrate", "--database-url", database.url]);
  const keyFile = join(dir, "key");
  occ(["bootstrap", ...common, "--api-key-file", keyFile]);
  apiKey = (await readFile(keyFile, "utf8")).trim();
}, 120_000);

afterAll(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("asynchronous API log", () => {
  it("loses no line when SIGTERM follows the last answer at once", async () => {
    const api = await startOcc(["api", ...common, "--port", "0"], /listening on (http:\/\/\S+)/);
    const url = api.match[1] ?? "";

    const clients = 8;
    const each = 40;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; i < each; i++) {
          const res = await fetch(`${url}/namespaces`, {
            method: "POST",
            headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
            body: JSON.stringify({ name: `log-${c}-${i}` }),
          });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
      }),
    );
    api.child.kill("SIGTERM");
    const { status, stdout } = await api.exited;
    expect(status).toBe(0);

    expect(statuses.filter((s) => s === 201)).toHaveLength(clients * each);
    const stored = await database.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM namespaces WHERE name LIKE 'log-%'",
    );
    expect(Number(stored.rows[0]?.n)).toBe(clients * each);

    const lines = stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { msg?: string; res?: { statusCode?: number } });
    const created = lines.filter((l) => l.msg === "request completed" && l.res?.statusCode === 201);
    expect(created).toHaveLength(clients * each);
    expect(lines.at(-1)?.msg).toBe("api stopped");
  }, 120_000);
});

type Role = "api" | "worker";
type Sink = "pipe" | "file" | "/dev/null";

const STOPPED_LINE: Record<Role, string> = { api: "api stopped", worker: "worker process stopped" };
const READY: Record<Role, RegExp> = {
  api: /listening on (http:\/\/\S+)/,
  worker: /"metrics":"(http:\/\/[^"]+\/metrics)"/,
};

/** The `msg` of the last JSON line of `text`. */
function lastMessage(text: string): string | undefined {
  const lines = text.split("\n").filter((l) => l.startsWith("{"));
  return (JSON.parse(lines.at(-1) ?? "{}") as { msg?: string }).msg;
}

/**
 * Starts `role` with its output to /dev/null, where no ready line can be read, and resolves
 * once it waits for its stop signal: the API once it answers /healthz (it registers its signal
 * handlers in the same turn as it starts listening), the worker once its heartbeat row says
 * running and its metrics endpoint answers (the handlers follow the heartbeat at once).
 */
async function startSilently(role: Role): Promise<OccProcess> {
  const port = await freePort();
  const args =
    role === "api"
      ? ["api", ...common, "--port", String(port)]
      : ["worker", ...workerCommon, "--metrics-port", String(port)];
  const proc = spawnOcc(args, { logFile: "/dev/null" });
  await eventually(`occ ${role} on /dev/null is ready`, async () => {
    if (!proc.running()) throw new Error(`occ ${role} exited early`);
    if (role === "worker") {
      const rows = await database.db.query<{ state: string }>(
        "SELECT state FROM worker_reports WHERE worker_id LIKE $1",
        [`%:${proc.pid}`],
      );
      if (rows.rows[0]?.state !== "running") return false;
    }
    const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    return res?.status === 200;
  });
  await new Promise((r) => setTimeout(r, 200));
  return proc;
}

describe("graceful shutdown wherever the output goes (R11)", () => {
  // The API to a pipe is the test above.
  const cases: [Role, Sink][] = [
    ["api", "file"],
    ["api", "/dev/null"],
    ["worker", "pipe"],
    ["worker", "file"],
    ["worker", "/dev/null"],
  ];
  it.each(cases)(
    "occ %s with its output to %s: exit 0 on SIGTERM, the last line written",
    async (role, sink) => {
      const args =
        role === "api"
          ? ["api", ...common, "--port", "0"]
          : ["worker", ...workerCommon, "--metrics-port", "0"];
      const logFile = join(dir, `${role}-${sink === "file" ? "file" : "pipe"}.log`);
      const proc =
        sink === "/dev/null"
          ? await startSilently(role)
          : await startOcc(args, READY[role], sink === "file" ? { logFile } : {});
      proc.child.kill("SIGTERM");
      const { status, stdout, stderr } = await proc.exited;
      const output = sink === "file" ? await readFile(logFile, "utf8") : `${stdout}${stderr}`;
      expect(status, output.slice(-2000)).toBe(0);
      if (sink !== "/dev/null") expect(lastMessage(output)).toBe(STOPPED_LINE[role]);
    },
    120_000,
  );
});
