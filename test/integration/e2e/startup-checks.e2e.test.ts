import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { requiredSchema } from "../../../src/store/schema-version.js";
import { createTestDatabase } from "../../harness/db.js";
import { occ, runOcc, startOcc, type OccProcess } from "../../harness/occ.js";

let dir: string;
let config: string;
const started: OccProcess[] = [];
const databases: { drop(): Promise<void> }[] = [];

async function freshDatabase() {
  const d = await createTestDatabase();
  databases.push(d);
  return d;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-startup-"));
  config = join(dir, "config.yaml");
  await writeFile(
    config,
    `kubernetes:\n  kubeconfig: ${inject("env").kubeconfigs["occ-worker"]}\n`,
  );
});

afterAll(async () => {
  for (const p of started) await p.stop();
  for (const d of databases) await d.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("an unmigrated database", () => {
  it(
    "occ api and occ worker exit 1 naming both versions and `occ migrate`",
    { timeout: 300_000 },
    async () => {
      const { required } = await requiredSchema();
      expect(required).toBeGreaterThanOrEqual(9);
      const database = await freshDatabase();
      const common = ["--database-url", database.url, "--config", config];
      const expected = `database schema is at version 0, this release needs ${required}: run \`occ migrate\``;
      for (const args of [
        ["api", ...common, "--port", "0"],
        ["worker", ...common, "--metrics-port", "0"],
      ]) {
        const res = runOcc(args);
        expect(res.status, res.stdout).toBe(1);
        expect(res.stderr).toContain(`occ: ${expected}`);
      }
      // Migrated, both start.
      occ(["migrate", "--database-url", database.url]);
      const api = await startOcc(["api", ...common, "--port", "0"], /listening on (http:\/\/\S+)/);
      started.push(api);
      expect((await fetch(`${api.match[1] ?? ""}/readyz`)).status).toBe(200);
    },
  );

  it(
    "/readyz answers 503 DATABASE_SCHEMA_OUTDATED once a migration goes missing under a running API, and ready again once it is back",
    { timeout: 300_000 },
    async () => {
      const { required, versions } = await requiredSchema();
      const database = await freshDatabase();
      occ(["migrate", "--database-url", database.url]);
      const common = ["--database-url", database.url, "--config", config];
      const api = await startOcc(["api", ...common, "--port", "0"], /listening on (http:\/\/\S+)/);
      started.push(api);
      const readyz = `${api.match[1] ?? ""}/readyz`;
      expect((await fetch(readyz)).status).toBe(200);

      const last = versions.at(-1) ?? "";
      const removed = await database.db.query<{ file: string; checksum: string }>(
        "DELETE FROM occ_schema_migrations WHERE version = $1 RETURNING file, checksum",
        [last],
      );
      const res = await fetch(readyz);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([res.status, body.error.code]).toEqual([503, "DATABASE_SCHEMA_OUTDATED"]);
      expect(body.error.message).toBe(
        `database schema is at version ${Number(versions.at(-2))}, this release needs ${required}: run \`occ migrate\``,
      );
      const row = removed.rows[0];
      await database.db.query(
        "INSERT INTO occ_schema_migrations (version, file, checksum) VALUES ($1, $2, $3)",
        [last, row?.file ?? "", row?.checksum ?? ""],
      );
      expect((await fetch(readyz)).status).toBe(200);
    },
  );
});

describe("a worker that refuses to start", () => {
  it(
    "is visible through GET /workers and occ status (check, code, message, time), next to a running worker's heartbeat",
    { timeout: 300_000 },
    async () => {
      const database = await freshDatabase();
      occ(["migrate", "--database-url", database.url]);
      const common = ["--database-url", database.url, "--config", config];
      const keyFile = join(dir, "key");
      occ(["bootstrap", ...common, "--api-key-file", keyFile]);
      const apiKey = (await readFile(keyFile, "utf8")).trim();

      const refusing = join(dir, "refusing.yaml");
      await writeFile(
        refusing,
        `kubernetes:\n  kubeconfig: ${inject("env").kubeconfigs["occ-worker"]}\nexecutionCluster:\n  enabled: true\n`,
      );
      const before = Date.now();
      const refused = runOcc([
        "worker",
        "--database-url",
        database.url,
        "--config",
        refusing,
        "--metrics-port",
        "0",
      ]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain("executionCluster.enabled: true is not supported");

      const api = await startOcc(["api", ...common, "--port", "0"], /listening on (http:\/\/\S+)/);
      started.push(api);
      const worker = await startOcc(
        ["worker", ...common, "--metrics-port", "0"],
        /"metrics":"(http:\/\/[^"]+\/metrics)"/,
      );
      started.push(worker);
      const apiUrl = api.match[1] ?? "";

      const res = await fetch(`${apiUrl}/workers`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(res.status).toBe(200);
      const workers = ((await res.json()) as { data: WorkerJson[] }).data;
      const refusal = workers.find((w) => w.state === "refused");
      expect([refusal?.refusal?.check, refusal?.refusal?.code]).toEqual([
        "profile",
        "EXECUTION_CLUSTER_UNSUPPORTED",
      ]);
      expect(refusal?.refusal?.message).toContain(
        "executionCluster.enabled: true is not supported",
      );
      expect(Date.parse(refusal?.refusal?.at ?? "")).toBeGreaterThanOrEqual(before - 1000);
      const running = workers.find((w) => w.workerId.endsWith(`:${worker.pid}`));
      expect(running).toMatchObject({ state: "running", refusal: null });
      expect(Date.parse(running?.lastHeartbeatAt ?? "")).toBeGreaterThanOrEqual(before - 1000);

      const status = runOcc(["status"], { env: { OCC_API_URL: apiUrl, OCC_API_KEY: apiKey } });
      expect(status.stdout).toContain("api: ready");
      expect(status.stdout).toContain(running?.workerId ?? "?");
      expect(status.stdout).toMatch(/refused to start \(profile, EXECUTION_CLUSTER_UNSUPPORTED\)/);
      expect(status.stdout).toContain("executionCluster.enabled: true is not supported");
      // The most recent report is the running worker's: status is healthy.
      expect(status.status, status.stderr).toBe(0);

      // A non-administrator learns nothing.
      const denied = await fetch(`${apiUrl}/workers`, {
        headers: { authorization: "Bearer occ_invalid" },
      });
      expect(denied.status).toBe(401);
    },
  );
});

interface WorkerJson {
  workerId: string;
  state: string;
  lastHeartbeatAt: string;
  refusal: { check: string; code: string; message: string; at: string } | null;
}
